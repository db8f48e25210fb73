package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/report"
)

// requestLog is two producers' transactions: tx-a (producer id 7) commits,
// tx-b (producer id 8) is fenced; the lines are out of time order, as two
// connections' lines can be.
const requestLog = `{"time":"2026-01-01T00:00:00.001Z","kind":"request","conn":1,"broker":"n1","api":"InitProducerID","key":22,"version":4,"correlation":1,"client_id":"a","txn":"tx-a","pid":-1,"epoch":-1}
{"time":"2026-01-01T00:00:00.002Z","kind":"response","conn":1,"broker":"n1","api":"InitProducerID","key":22,"version":4,"correlation":1,"duration_us":1000,"pid":7,"epoch":0}
{"time":"2026-01-01T00:00:00.004Z","kind":"request","conn":2,"broker":"n2","api":"Produce","key":0,"version":9,"correlation":3,"client_id":"a","txn":"tx-a","acks":-1,"partitions":[{"topic":"t","partition":2,"pid":7,"epoch":0,"seq":0,"records":3,"transactional":true}]}
{"time":"2026-01-01T00:00:00.003Z","kind":"request","conn":3,"broker":"n2","api":"Produce","key":0,"version":9,"correlation":9,"client_id":"b","txn":"tx-b","acks":-1,"partitions":[{"topic":"t","partition":1,"pid":8,"epoch":2,"seq":4,"records":1,"transactional":true}]}
{"time":"2026-01-01T00:00:00.005Z","kind":"response","conn":2,"broker":"n2","api":"Produce","key":0,"version":9,"correlation":3,"duration_us":1000,"partitions":[{"topic":"t","partition":2,"offset":41}]}
{"time":"2026-01-01T00:00:00.006Z","kind":"response","conn":3,"broker":"n2","api":"Produce","key":0,"version":9,"correlation":9,"duration_us":3000,"partitions":[{"topic":"t","partition":1,"offset":-1,"error":"INVALID_PRODUCER_EPOCH"}]}
{"time":"2026-01-01T00:00:00.007Z","kind":"request","conn":1,"broker":"n1","api":"EndTxn","key":26,"version":3,"correlation":2,"client_id":"a","txn":"tx-a","pid":7,"epoch":0,"commit":true}
{"time":"2026-01-01T00:00:00.009Z","kind":"response","conn":1,"broker":"n1","api":"EndTxn","key":26,"version":3,"correlation":2,"duration_us":2000}
`

func writeRequestLog(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, report.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	gz.Write([]byte(body))
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return dir
}

// The reader prints one row per request with its response, in time order,
// and each filter keeps only its transaction, producer or APIs.
func TestRequestsFilters(t *testing.T) {
	dir := writeRequestLog(t, requestLog)
	for _, tc := range []struct {
		args       []string
		want, dont []string
	}{
		{nil, []string{"00:00:00.003000  3", "00:00:00.004000  2", "INVALID_PRODUCER_EPOCH", "t[2]@41", "commit", "pid 7/0"}, nil},
		{[]string{"--txn", "tx-a"}, []string{"Produce v9", "EndTxn v3", "InitProducerID v4", "t[2] pid 7/0 seq 0 n 3 txn"}, []string{"tx-b"}},
		{[]string{"--pid", "7"}, []string{"InitProducerID v4", "EndTxn v3"}, []string{"tx-b"}},
		{[]string{"--pid", "8"}, []string{"tx-b", "3.0"}, []string{"tx-a"}},
		{[]string{"--api", "endtxn,InitProducerID"}, []string{"EndTxn v3", "InitProducerID v4"}, []string{"Produce v"}},
	} {
		code, out, errs := cli(t, append([]string{"requests", dir}, tc.args...)...)
		if code != exitValid {
			t.Fatalf("requests %v: exit %d: %s", tc.args, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("requests %v does not print %q:\n%s", tc.args, w, out)
			}
		}
		for _, d := range tc.dont {
			if strings.Contains(out, d) {
				t.Errorf("requests %v prints %q:\n%s", tc.args, d, out)
			}
		}
	}
	_, out, _ := cli(t, "requests", dir)
	if i, j := strings.Index(out, "tx-b"), strings.Index(out, "t[2] pid 7/0"); i < 0 || j < 0 || i > j {
		t.Errorf("rows not in time order (tx-b's produce came first):\n%s", out)
	}
}

// A bad line is an error naming the file, the line and the field.
func TestRequestsBadLine(t *testing.T) {
	dir := writeRequestLog(t, requestLog+`{"time":"2026-01-01T00:00:00.010Z","kind":"request","conn":"x"}`+"\n")
	code, _, errs := cli(t, "requests", dir)
	if code != exitError || !strings.Contains(errs, report.RequestsFile+":9:") || !strings.Contains(errs, `"conn"`) {
		t.Errorf("exit %d, stderr %q: want %d naming %s:9 and the field", code, errs, exitError, report.RequestsFile)
	}
}

// --late prints the requests still unanswered when their transaction
// ended, each beside that end, and counts them by answer: in the pinned
// run of KAFKA-17754's late produce on Kafka 3.3.2, the five produce
// requests the proxies held past the client's timeouts.
func TestRequestsLate(t *testing.T) {
	code, out, errs := cli(t, "requests", "../../docs/evidence/kafka-17754-late-produce/librdkafka-kafka-3.3.2", "--late")
	if code != exitValid {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"5 requests still unanswered when their transaction ended: Produce unanswered 5",
		"out-r1[0] pid 2000/1 seq 0 n 5 txn", "(its transaction's end)"} {
		if !strings.Contains(out, w) {
			t.Errorf("requests --late does not print %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "seq 5 n 5") {
		t.Errorf("requests --late prints a produce answered within its transaction:\n%s", out)
	}
	_, out, _ = cli(t, "requests", writeRequestLog(t, requestLog), "--late")
	if !strings.Contains(out, "no request outlived its transaction") {
		t.Errorf("requests --late of a log without late requests:\n%s", out)
	}
}
