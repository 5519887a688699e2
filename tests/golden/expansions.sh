echo "x $HOME ${y:-z}" \$ \\
