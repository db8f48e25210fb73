package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kafkachaos/kafkachaos/generators"
)

func main() {
	out := flag.String("o", "docs/faults.md", "the file to write")
	flag.Parse()
	if err := os.WriteFile(*out, []byte(generators.FaultReference()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "faultsdoc:", err)
		os.Exit(1)
	}
}
