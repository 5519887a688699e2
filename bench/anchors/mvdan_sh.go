// In-process anchor: mvdan/sh (the parser of shfmt and gosh), Debian's golang-mvdan-sh-dev.
// Reads the commands file bench_anchors.sh wrote (one per line) and times
// syntax.NewParser().Parse per command, three passes after a warm-up, the best of the three per
// command (as the C benches do).  Prints mean, p50, p99 and a key=value line.
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var cmds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cmds = append(cmds, sc.Text())
	}
	best := make([]float64, len(cmds))
	for i := range best {
		best[i] = 1e18
	}
	parsed := 0
	for pass := 0; pass < 4; pass++ {
		parsed = 0
		for i, c := range cmds {
			t0 := time.Now()
			_, err := syntax.NewParser().Parse(strings.NewReader(c), "")
			d := float64(time.Since(t0).Nanoseconds())
			if err == nil {
				parsed++
			}
			if pass > 0 && d < best[i] {
				best[i] = d
			}
		}
	}
	sort.Float64s(best)
	sum := 0.0
	for _, v := range best {
		sum += v
	}
	n := len(best)
	mean := sum / float64(n)
	fmt.Printf("mvdan/sh syntax.NewParser().Parse: %d commands, %d parsed; mean %.0f ns, p50 %.0f ns, p99 %.0f ns\n",
		n, parsed, mean, best[n/2], best[n*99/100])
	fmt.Printf("mvdan_mean_ns=%.0f mvdan_p50_ns=%.0f\n", mean, best[n/2])
}
