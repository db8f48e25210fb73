package report_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kafkachaos/kafkachaos/report"
)

// Write turns a run directory into index.html; a person opens it offline.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "run")
	defer os.RemoveAll(dir)
	history := `{"index":0,"time":1000,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":0,"value":1}]}
{"index":1,"time":2000000,"process":0,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":1,"offset":0}]}
`
	os.WriteFile(filepath.Join(dir, report.HistoryFile), []byte(history), 0o644)
	os.WriteFile(filepath.Join(dir, report.ResultsFile), []byte(`{"valid":true,"anomaly-types":[],"anomalies":{}}`), 0o644)
	if err := report.Write(dir, report.Options{Title: "example"}); err != nil {
		fmt.Println(err)
		return
	}
	_, err := os.Stat(filepath.Join(dir, report.IndexFile))
	fmt.Println(err == nil)
	// Output: true
}
