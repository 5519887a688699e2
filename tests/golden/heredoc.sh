cat <<EOF
