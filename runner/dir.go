package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RunsEnv names the environment variable for the runs root.
const RunsEnv = "KAFKACHAOS_RUNS"

// runsRoot is opts' root, else $KAFKACHAOS_RUNS, else runs/ in the module
// root (the nearest directory up from here with a go.mod), else ./runs.
func runsRoot(opt string) string {
	if opt != "" {
		return opt
	}
	if env := os.Getenv(RunsEnv); env != "" {
		return env
	}
	wd, err := os.Getwd()
	if err != nil {
		return "runs"
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "runs")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, "runs")
		}
	}
}

// makeRunDir creates runs/<test>/<UTC time>/; two runs in one millisecond
// get a suffix rather than sharing a directory.
func makeRunDir(root, test string, now time.Time) (string, error) {
	parent := filepath.Join(root, safeName(test))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("run directory: %w", err)
	}
	stamp := now.UTC().Format("20060102T150405.000Z")
	for i := 0; ; i++ {
		dir := filepath.Join(parent, stamp)
		if i > 0 {
			dir = fmt.Sprintf("%s-%d", dir, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) {
			return "", fmt.Errorf("run directory: %w", err)
		}
	}
}

// safeName keeps a test name (TestX/sub#01) usable as a directory name.
func safeName(s string) string {
	if s == "" {
		return "run"
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '\\', ':', ' ', '*', '?', '"', '<', '>', '|':
			return '_'
		}
		return r
	}, s)
}
