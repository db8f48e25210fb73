package runner

import (
	"testing"
)

// A run's late requests are counted from its request log, by API and
// answer (the pinned run of KAFKA-17754's late produce: five produce
// requests held past the client's timeouts); a run without proxies has
// none.
func TestLateRequestsFromTheRequestLog(t *testing.T) {
	got, err := lateRequests("../docs/evidence/kafka-17754-late-produce/librdkafka-kafka-3.3.2")
	if err != nil || len(got) != 1 || got["Produce unanswered"] != 5 {
		t.Errorf("lateRequests = %v, %v; want Produce unanswered 5", got, err)
	}
	if got, err := lateRequests(t.TempDir()); err != nil || got != nil {
		t.Errorf("lateRequests of a run without a request log = %v, %v; want none", got, err)
	}
}
