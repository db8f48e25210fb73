// Package report turns a run directory into a self-contained HTML page a
// person can open offline: the verdict, the anomalies with the ops that prove
// them, a timeline of every op with the fault windows, per-key offset orders
// for the keys with findings, and SVG plots of latency, throughput and unseen
// values. It also serves a folder of runs with an index, newest first.
//
// Inputs are only the files of a run directory (history.jsonl, results.json,
// scenario.json, optional porcupine visualizations; the page links every
// file there, saying what the harness's own files are): this package must not
// know about Kafka clients, clusters or nemeses, and must not run checkers —
// it shows what the checkers wrote. The verdict is read from results.json,
// never recomputed (verdict.go, whose one rule the runs index and
// `kafkachaos summary` read too): a harness error makes the run NOT TRUSTED
// and is shown first, then the run's guarantee-held (NOT HELD), both red;
// a run that held is green when the checker found nothing and amber (HELD)
// when it found anomalies the expected guarantee allows, with the hops that
// allow them and the model's reasons. Unclassified anomalies
// are named in the verdict, and liveness findings (availability per op kind,
// recovery after the last heal, stalls in fault windows, the worst realtime
// lag, client hangs) have their own section and never change it; a run
// whose liveness says it never recovered is marked NOT LIVE beside the
// verdict, in the title and in the runs index (liveness.go, verdict.go). Anomaly types are listed by what they
// mean for the user (loss, then duplication, then ordering, then the rest),
// and a large case set is summarized per key with its first cases shown and
// the others folded, every case results.json holds still in the page. The
// page makes no request to any host: CSS, JavaScript and SVG are inline.
//
// The page is streamed to its file as it is made, and a pass over the
// history keeps a small span per op, never the ops: a million-op history
// is reported in about a hundred megabytes.
package report
