package report

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// runFile is one entry of the run directory, as the page lists it.
type runFile struct {
	Name  string // a directory's ends in /
	Size  string
	About string
}

// runFiles lists what the run directory holds (but the page itself and
// hidden files), so every file a run wrote is one click away; the files
// the harness names are said what they are.
func runFiles(dir string) []runFile {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	notes := fileNotes()
	var out []runFile
	for _, e := range entries {
		name := e.Name()
		if name == IndexFile || strings.HasPrefix(name, ".") {
			continue
		}
		f := runFile{Name: name, About: notes[name]}
		if e.IsDir() {
			f.Name += "/"
		} else if info, err := e.Info(); err == nil {
			f.Size = byteSize(info.Size())
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// fileNotes says what the files a run writes are, by name.
func fileNotes() map[string]string {
	return map[string]string{
		HistoryFile:   "every op of the run, as the checkers read it (kafkachaos check DIR re-judges it)",
		ResultsFile:   "what the checkers found and the verdict",
		ScenarioFile:  "the scenario; kafkachaos run --scenario replays it",
		RequestsFile:  "the Kafka requests and responses of the clients' connections, from their proxies; kafkachaos requests DIR prints them, by transaction or producer id",
		"client.log":  "the Kafka clients' own log lines",
		"cluster.txt": "the reused cluster this run ran on",
	}
}

// byteSize is n bytes for a person: B, KiB, MiB, GiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), ""
	for _, s := range []string{"KiB", "MiB", "GiB"} {
		v, suffix = v/unit, s
		if v < unit {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
