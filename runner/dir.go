package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
)

// RunsEnv names the environment variable for the runs root.
const RunsEnv = "KAFKACHAOS_RUNS"

// RunsRoot is opt, else $KAFKACHAOS_RUNS, else runs/ in the module root
// (the nearest directory up from here with a go.mod), else ./runs: where
// run directories go, and what else a command writes beside them.
func RunsRoot(opt string) string {
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

// MakeRunDir creates root/<test>/<UTC time>/; two runs in one millisecond
// get a suffix rather than sharing a directory.
func MakeRunDir(root, test string, now time.Time) (string, error) {
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

// ClientLogFile is the run directory's log of librdkafka's own lines (one
// client.LogLine a line, naming the worker that logged it), which would
// otherwise flood the terminal meant for progress and verdicts.
const ClientLogFile = "client.log"

// OpenClientLog creates dir's client log and routes clients' lines to it.
// closeLog ends every drain, those of clients abandoned after a hang too,
// and closes the file; its error names what failed.
func OpenClientLog(dir string) (logs *client.Logs, closeLog func() error, err error) {
	path := filepath.Join(dir, ClientLogFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("client log: %w", err)
	}
	w := client.NewLogWriter(f)
	logs = client.NewLogs(w)
	return logs, func() error {
		logs.Close()
		err := w.Err()
		if cerr := f.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing %s: %w", path, cerr))
		}
		return err
	}, nil
}
