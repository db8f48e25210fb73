package report

import (
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// runEntry is one run in the index of a runs folder.
type runEntry struct {
	Path    string // relative to the runs folder, slash-separated
	Verdict Verdict
	NotLive *Verdict
	Types   []checkers.Anomaly
}

// listRuns finds runs/<Test>/<time>/ directories holding a history, newest
// first (run directory names are UTC times, so they sort as text).
func listRuns(runsDir string) ([]runEntry, error) {
	matches, err := filepath.Glob(filepath.Join(runsDir, "*", "*", HistoryFile))
	if err != nil {
		return nil, err
	}
	var out []runEntry
	for _, m := range matches {
		dir := filepath.Dir(m)
		rel, _ := filepath.Rel(runsDir, dir)
		// The same verdict as the run's page; unreadable results count as
		// unchecked (the page names the error).
		res, checked, err := loadResults(dir)
		e := runEntry{Path: filepath.ToSlash(rel), Verdict: res.facts(checked && err == nil).Verdict()}
		if err == nil {
			e.Types, e.NotLive = res.AnomalyTypes, liveVerdict(res.Liveness)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		ti, tj := filepath.Base(out[i].Path), filepath.Base(out[j].Path)
		if ti != tj {
			return ti > tj
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

var indexTemplate = template.Must(template.New("runs").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kafkachaos runs</title>
<style>body{font:13px system-ui,sans-serif;margin:24px;color:#0f172a}table{border-collapse:collapse}
td,th{padding:4px 12px;border-bottom:1px solid #e2e8f0;text-align:left}.ok{color:#15803d;font-weight:700}
.bad,.untrusted{color:#b91c1c;font-weight:700}.allowed{color:#b45309;font-weight:700}.unk{color:#64748b}a{color:#1d4ed8}</style></head><body>
<h1>kafkachaos runs</h1>
<table><thead><tr><th>run</th><th>verdict</th><th>anomalies</th></tr></thead><tbody>
{{range .}}<tr class="run"><td><a href="{{.Path}}/">{{.Path}}</a></td>
<td><span class="{{.Verdict.Class}}">{{.Verdict.Word}}</span>{{with .NotLive}} <span class="{{.Class}}">{{.Word}}</span>{{end}}</td>
<td>{{range $i, $t := .Types}}{{if $i}}, {{end}}{{$t}}{{end}}</td></tr>
{{else}}<tr><td colspan="3">No runs.</td></tr>{{end}}
</tbody></table></body></html>`))

// Handler serves a runs folder: "/" is an index of every run, newest first,
// with its verdict; "/<Test>/<time>/" is the run's report, written first
// when it is missing or older than the run's history or results.
func Handler(runsDir string, opts Options) http.Handler {
	files := http.FileServer(http.Dir(runsDir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			runs, err := listRuns(runsDir)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_ = indexTemplate.Execute(w, runs) // a failed write is the client gone
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") {
			dir := filepath.Join(runsDir, filepath.FromSlash(filepath.Clean("/"+r.URL.Path)))
			if stale(dir) {
				if err := Write(dir, opts); err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
			}
		}
		files.ServeHTTP(w, r)
	})
}

// stale reports whether a run directory's index.html is missing or older
// than its inputs.
func stale(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, HistoryFile)); err != nil {
		return false // not a run directory: let the file server answer
	}
	idx, err := os.Stat(filepath.Join(dir, IndexFile))
	if err != nil {
		return true
	}
	for _, f := range []string{HistoryFile, ResultsFile, ScenarioFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && st.ModTime().After(idx.ModTime()) {
			return true
		}
	}
	return false
}

// Serve serves Handler(runsDir, opts) on addr until the server fails.
func Serve(runsDir, addr string, opts Options) error {
	return http.ListenAndServe(addr, Handler(runsDir, opts))
}
