package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kafkachaos/kafkachaos/explore"
)

// mergeCmd is `kafkachaos merge OUT DIR...`: the outputs of an explore
// campaign's shards, one directory each, made into the campaign's output
// in OUT, each shard's directory linked under OUT/shards so that the
// merged report's run directories resolve. Exit 0 when no draw violated
// its claim, 1 when one did, 2 on bad input (outputs not of one campaign,
// a shard or a draw twice).
func mergeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos merge OUT DIR...")
		fmt.Fprintln(stderr, "merges the outputs (--out) of `kafkachaos explore --shard I/N` into one campaign output in OUT:")
		fmt.Fprintln(stderr, "the draws, coverage table, violations, draws not live, shrinks and summary, each shard's")
		fmt.Fprintln(stderr, "directory linked as OUT/shards/NAME; outputs of another space, seed, bound or shard count,")
		fmt.Fprintln(stderr, "or holding a shard or a draw already merged, are refused")
		fmt.Fprintln(stderr, "exit status: 0 no violation, 1 a draw violated its claim, 2 bad input")
		fs.PrintDefaults()
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return exitError
	}
	m, err := mergeOutputs(fs.Arg(0), fs.Args()[1:])
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos merge:", err)
		return exitError
	}
	m.Write(stdout)
	fmt.Fprintln(stdout, "merged output:", fs.Arg(0))
	if len(m.Violations) > 0 {
		return exitInvalid
	}
	return exitValid
}

// mergeOutputs loads each shard output of dirs, merges them, links each
// directory under out/shards and saves the merge into out.
func mergeOutputs(out string, dirs []string) (explore.Output, error) {
	out, err := filepath.Abs(out)
	if err != nil {
		return explore.Output{}, err
	}
	outs := make([]explore.Output, len(dirs))
	links := make([]string, len(dirs))
	for i, d := range dirs {
		if outs[i], err = explore.LoadOutput(d); err != nil {
			return explore.Output{}, err
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return explore.Output{}, err
		}
		if abs == out {
			return explore.Output{}, fmt.Errorf("%s: is OUT; merge into a directory of its own", d)
		}
		links[i] = filepath.Join(out, "shards", linkName(abs, links[:i]))
		outs[i].Rebase(abs, links[i])
	}
	m, err := explore.Merge(dirs, outs)
	if err != nil {
		return explore.Output{}, err
	}
	for i, d := range dirs {
		if err := link(d, links[i]); err != nil {
			return explore.Output{}, err
		}
	}
	return m, m.Save(out)
}

// linkName is dir's name under OUT/shards: its base name, numbered when
// an earlier one took it.
func linkName(dir string, taken []string) string {
	name := filepath.Base(dir)
	for n := 2; ; n++ {
		free := true
		for _, t := range taken {
			free = free && filepath.Base(t) != name
		}
		if free {
			return name
		}
		name = filepath.Base(dir) + "-" + strconv.Itoa(n)
	}
}

// link makes at a relative symbolic link to dir, replacing the link of an
// earlier merge into the same OUT.
func link(dir, at string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		return err
	}
	if fi, err := os.Lstat(at); err == nil {
		if fi.Mode()&os.ModeSymlink == 0 {
			return fmt.Errorf("%s: exists and is no link of an earlier merge", at)
		}
		if err := os.Remove(at); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(at), abs)
	if err != nil {
		return err
	}
	return os.Symlink(rel, at)
}
