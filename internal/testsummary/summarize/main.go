// Command summarize prints what `go test -json` streams say ran, failed and
// skipped (see package testsummary). Each file is one go test invocation,
// named after the file without .json.
//
//	go run ./internal/testsummary/summarize [-markdown] [-trim MODULE] FILE.json...
//
// Exit status: 0 when nothing failed, 1 when a test or package failed or
// did not finish, 2 on bad input.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/testsummary"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("summarize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	markdown := fs.Bool("markdown", false, "print Markdown (for a CI job page) instead of text")
	trim := fs.String("trim", "", "package path prefix to leave out (the module path)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "summarize: no go test -json files given")
		return 2
	}
	s := testsummary.Summary{Trim: *trim}
	for _, path := range fs.Args() {
		r, err := readRun(path)
		if err != nil {
			fmt.Fprintln(stderr, "summarize:", err)
			return 2
		}
		s.Runs = append(s.Runs, r)
	}
	write := s.WriteText
	if *markdown {
		write = s.WriteMarkdown
	}
	if err := write(stdout); err != nil {
		fmt.Fprintln(stderr, "summarize:", err)
		return 2
	}
	if s.Failed() {
		return 1
	}
	return 0
}

func readRun(path string) (testsummary.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return testsummary.Run{}, err
	}
	defer f.Close()
	return testsummary.Read(strings.TrimSuffix(filepath.Base(path), ".json"), f)
}
