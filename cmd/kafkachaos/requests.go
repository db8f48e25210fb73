package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kafkachaos/kafkachaos/internal/counts"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
	"github.com/kafkachaos/kafkachaos/report"
)

func requestsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("requests", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f kproxy.Filter
	fs.StringVar(&f.Txn, "txn", "", "only the requests of this transactional id")
	fs.Func("pid", "only the requests of this producer id (a request's, a batch's, or the one InitProducerID gave)", func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		f.PID = &n
		return err
	})
	fs.Func("api", "only these APIs, comma-separated (Produce,InitProducerID,AddPartitionsToTxn,AddOffsetsToTxn,EndTxn,TxnOffsetCommit,FindCoordinator, or any other API's name)", func(s string) error {
		f.APIs = append(f.APIs, strings.Split(s, ",")...)
		return nil
	})
	late := fs.Bool("late", false, "only the transactions' requests still unanswered when their transaction ended (an EndTxn sent after them was answered): the late arrivals of KAFKA-17754, each with its answer")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos requests RUN_DIR [--txn ID] [--pid N] [--api EndTxn,...] [--late]")
		fmt.Fprintln(stderr, "Prints the Kafka requests the run's clients sent through their proxies, in time order, each with")
		fmt.Fprintln(stderr, "its response: the connection, broker, client id, API and version, correlation id, transactional")
		fmt.Fprintln(stderr, "id, producer id/epoch, what the request asked (per batch: partition, producer id/epoch, base")
		fmt.Fprintln(stderr, "sequence, record count, transactional) and what the response said (errors, base offsets), and")
		fmt.Fprintln(stderr, "how long it took. RUN_DIR is a run directory whose clients went through proxies (a scenario with")
		fmt.Fprintln(stderr, "cluster.client-proxies, a latency or a delayed-requests fault), or its "+report.RequestsFile+" itself.")
		fs.PrintDefaults()
	}
	path, exit, ok := parseInterleaved(fs, args)
	if !ok {
		return exit
	}
	entries, err := kproxy.ReadLog(requestLogPath(path))
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos requests:", err)
		return exitError
	}
	xs := kproxy.Exchanges(entries)
	if *late {
		return lateRequests(xs, f, stdout, stderr)
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TIME\tCONN\tBROKER\tCLIENT-ID\tAPI\tCORR\tTXN\tPID/EPOCH\tREQUEST\tRESPONSE\tMS")
	for _, x := range xs {
		if f.Match(x) {
			fmt.Fprintln(w, row(x))
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "kafkachaos requests:", err)
		return exitError
	}
	return exitValid
}

// lateRequests prints the requests f picks that outlived their
// transaction, each with the EndTxn that ended it, then their count by
// API and answer.
func lateRequests(xs []kproxy.Exchange, f kproxy.Filter, stdout, stderr io.Writer) int {
	var picked []kproxy.Outlived
	for _, o := range kproxy.OutlivedTxn(xs) {
		if f.Match(o.Exchange) {
			picked = append(picked, o)
		}
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TIME\tCONN\tBROKER\tCLIENT-ID\tAPI\tCORR\tTXN\tPID/EPOCH\tREQUEST\tRESPONSE\tMS")
	for _, o := range picked {
		fmt.Fprintln(w, row(o.Exchange))
		fmt.Fprintln(w, row(o.End)+"\t(its transaction's end)")
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "kafkachaos requests:", err)
		return exitError
	}
	if len(picked) == 0 {
		fmt.Fprintln(stdout, "no request outlived its transaction")
		return exitValid
	}
	fmt.Fprintf(stdout, "%d requests still unanswered when their transaction ended: %s\n", len(picked), counts.Counts(kproxy.LateCounts(picked)))
	return exitValid
}

// parseInterleaved parses flags before and after the one argument, as
// `requests RUN_DIR --txn ID` is written.
func parseInterleaved(fs *flag.FlagSet, args []string) (string, int, bool) {
	var pos []string
	for {
		if exit, ok := parseFlags(fs, args); !ok {
			return "", exit, false
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", exitError, false
	}
	return pos[0], exitValid, true
}

// requestLogPath is the request log of a run directory, or path itself.
func requestLogPath(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		p := filepath.Join(path, report.RequestsFile)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if plain := strings.TrimSuffix(p, ".gz"); plain != p {
				if _, err := os.Stat(plain); err == nil {
					return plain
				}
			}
		}
		return p
	}
	return path
}

// row is one exchange as a table row.
func row(x kproxy.Exchange) string {
	r := x.Request
	pid := ""
	switch {
	case r.PID != nil:
		pid = pidEpoch(r.PID, r.Epoch)
	case len(r.Partitions) > 0 && r.Partitions[0].PID != nil:
		pid = pidEpoch(r.Partitions[0].PID, r.Partitions[0].Epoch)
	}
	resp, ms := "(no response)", ""
	if x.Response != nil {
		resp, ms = responseText(*x.Response), strconv.FormatFloat(float64(x.Response.DurationUs)/1000, 'f', 1, 64)
	}
	return strings.Join([]string{r.Time.UTC().Format("15:04:05.000000"), strconv.FormatInt(r.Conn, 10), r.Broker, r.ClientID,
		fmt.Sprintf("%s v%d", r.API, r.Version), strconv.FormatInt(int64(r.Correlation), 10), r.Txn, pid,
		requestText(r), resp, ms}, "\t")
}

func pidEpoch(pid *int64, epoch *int16) string {
	if epoch == nil {
		return strconv.FormatInt(*pid, 10)
	}
	return fmt.Sprintf("%d/%d", *pid, *epoch)
}

// requestText says what a request asked, for the transaction APIs.
func requestText(r kproxy.Entry) string {
	var parts []string
	switch {
	case r.Commit != nil && *r.Commit:
		parts = append(parts, "commit")
	case r.Commit != nil:
		parts = append(parts, "abort")
	case r.Group != "":
		parts = append(parts, "group "+r.Group)
	case len(r.Keys) > 0:
		parts = append(parts, fmt.Sprintf("%s %s", keyType(r.KeyType), strings.Join(r.Keys, ",")))
	}
	for _, p := range r.Partitions {
		parts = append(parts, partitionText(p))
	}
	if r.Undecoded != "" {
		parts = append(parts, "undecoded: "+r.Undecoded)
	}
	return strings.Join(parts, "; ")
}

func keyType(t *int8) string {
	if t != nil && *t == 1 {
		return "txn"
	}
	return "group"
}

// partitionText is one partition of a request: a Produce batch, an added
// partition, a committed offset.
func partitionText(p kproxy.Partition) string {
	s := fmt.Sprintf("%s[%d]", shortTopic(p.Topic), p.Partition)
	if p.Txn != "" {
		s = p.Txn + ": " + s
	}
	if p.Seq != nil {
		s += fmt.Sprintf(" pid %s seq %d n %d", pidEpoch(p.PID, p.Epoch), *p.Seq, *p.Records)
		if *p.Transactional {
			s += " txn"
		}
	}
	if p.Offset != nil {
		s += fmt.Sprintf("@%d", *p.Offset)
	}
	return s
}

// shortTopic shortens a topic id (newer versions send ids, not names).
func shortTopic(t string) string {
	if len(t) == 32 && strings.Trim(t, "0123456789abcdef") == "" {
		return t[:8]
	}
	return t
}

// responseText says what a response said: its errors, base offsets, the
// producer id it gave, the coordinator it named.
func responseText(e kproxy.Entry) string {
	var parts []string
	if e.Error != "" {
		parts = append(parts, e.Error)
	}
	if e.API == "InitProducerID" && e.PID != nil {
		parts = append(parts, "pid "+pidEpoch(e.PID, e.Epoch))
	}
	for _, c := range e.Coordinators {
		parts = append(parts, strings.TrimSpace(fmt.Sprintf("%s node %d %s", c.Key, c.Node, c.Error)))
	}
	for _, p := range e.Partitions {
		s := fmt.Sprintf("%s[%d]", shortTopic(p.Topic), p.Partition)
		if p.Txn != "" {
			s = p.Txn + ": " + s
		}
		if p.Offset != nil && *p.Offset >= 0 {
			s += fmt.Sprintf("@%d", *p.Offset)
		}
		if p.Error != "" {
			s += " " + p.Error
		}
		parts = append(parts, s)
	}
	if e.Undecoded != "" {
		parts = append(parts, "undecoded: "+e.Undecoded)
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, "; ")
}
