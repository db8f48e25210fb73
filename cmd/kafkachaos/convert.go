package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/kafkachaos/kafkachaos/histories"
)

func importCmd(args []string, stdout, stderr io.Writer) int {
	return convert("import", "an EDN history", histories.FormatEDN, histories.ExportJSONL, args, stdout, stderr)
}

func exportCmd(args []string, stdout, stderr io.Writer) int {
	return convert("export", "a JSONL history", histories.FormatJSONL, histories.ExportEDN, args, stdout, stderr)
}

// convert reads one history file in format from and writes it to stdout
// through write.
func convert(name, what string, from histories.Format, write func(io.Writer, histories.Source) error,
	args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kafkachaos %s FILE   (reads %s, writes to stdout)\n", name, what)
	}
	path, exit, ok := parseOneArg(fs, args)
	if !ok {
		return exit
	}
	src, err := histories.Open(path, from)
	if err != nil {
		fmt.Fprintf(stderr, "kafkachaos %s: %v\n", name, err)
		return exitError
	}
	if err := write(stdout, src); err != nil {
		fmt.Fprintf(stderr, "kafkachaos %s: %v\n", name, err)
		return exitError
	}
	for _, w := range src.Warnings() {
		fmt.Fprintf(stderr, "kafkachaos %s: warning: %s\n", name, w)
	}
	return exitValid
}
