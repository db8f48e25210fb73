// Package counts holds named counts (requests by API and answer, anomalies
// by name) and prints them the one way every summary line does, so that a
// run's results, a campaign's summary and the request log's tools agree.
// It must not know what is counted.
package counts
