package checkers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// hang appends a client-hang op of process p with value v.
func (h *hist) hang(p int64, v string) int64 {
	i := h.op(p, info, histories.FClientHang)
	h.last().Value = json.RawMessage(v)
	return i
}

const sendOffsetsHang = `{"call":"SendOffsetsToTransaction","timeout-ms":9900,"grace-ms":5000,"blocked-ms":15000}`

func TestClientHangIsALivenessFindingNotAnAnomaly(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(1, histories.Invoke, "txn", snd(2, 20, histories.NoOffset))
	i := h.hang(1, sendOffsetsHang)
	h.op(2, ok, "poll", pl(1, 0, 10))
	res := check(t, h, Options{})
	expectOnly(t, res)
	if !res.Valid || len(res.Warnings) > 0 {
		t.Fatalf("a hang changed the verdict or warned: valid %v, warnings %q", res.Valid, res.Warnings)
	}
	if res.Liveness == nil || len(res.Liveness.ClientHangs) != 1 {
		t.Fatalf("liveness = %+v, want one client hang", res.Liveness)
	}
	b, err := json.Marshal(res.Liveness.ClientHangs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"index":` + itoa(i) + `,"process":1,"call":"SendOffsetsToTransaction","timeout-ms":9900,"grace-ms":5000,"blocked-ms":15000}]`
	if string(b) != want {
		t.Fatalf("client-hangs JSON\n got %s\nwant %s", b, want)
	}
	if !res.Liveness.Live {
		t.Fatal("a hang made the run not live")
	}
}

func TestNoClientHangNoClientHangs(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(1, info, histories.FCrash)
	h.op(2, ok, "poll", pl(1, 0, 10))
	res := check(t, h, Options{})
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "client-hangs") {
		t.Fatalf("results.json would carry an empty client-hangs list: %s", b)
	}
}

// A history without client ops, faults or hangs has no liveness section.
func TestNothingToReportNoLiveness(t *testing.T) {
	h := &hist{}
	h.keys(0, ok, "assign", 1)
	res := check(t, h, Options{})
	b, _ := json.Marshal(res)
	if res.Liveness != nil || strings.Contains(string(b), "liveness") {
		t.Fatalf("liveness = %+v for a history without sends, polls, faults or hangs", res.Liveness)
	}
}

// The hang does not hide anomalies either: a loss stays a loss.
func TestClientHangBesideAnAnomaly(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(0, ok, "send", snd(1, 11, 1))
	h.hang(0, sendOffsetsHang)
	h.op(2, ok, "poll", pl(1, 1, 11))
	res := check(t, h, Options{})
	expectOnly(t, res, LostWrite, Unseen)
	if res.Liveness == nil || res.Liveness.ClientHangs[0].Call != "SendOffsetsToTransaction" {
		t.Fatalf("liveness = %+v", res.Liveness)
	}
}

func TestMalformedClientHangIsAnError(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.hang(1, `{"call":"Flush","timeout-ms":"ten"}`)
	_, err := Check(Ops(h.ops), Options{})
	want := `op index 1: field "value.timeout-ms": expected a non-negative integer of milliseconds`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}
