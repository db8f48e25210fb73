package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/report"
)

// killedHistory: a send succeeds, a node is killed and restarted, and the
// send after the heal ends as after.
func killedHistory(after histories.Type) []histories.Op {
	nem := func(i, t int64, f, when string) histories.Op {
		return histories.Op{Index: i, Time: t, Process: histories.NemesisProcess, Type: histories.Info, F: f,
			Value: json.RawMessage(`{"fault":"kill","health":{"when":"` + when + `","healthy":true}}`)}
	}
	send := func(i, t int64, typ histories.Type, o int64) histories.Op {
		return histories.Op{Index: i, Time: t, Type: typ, F: histories.FSend,
			Mops: []histories.Mop{{F: histories.MSend, Key: 0, Value: i, Offset: o}}}
	}
	o := int64(1)
	if after != histories.OK {
		o = histories.NoOffset
	}
	return []histories.Op{send(0, 0, histories.OK, 0), nem(1, 1e9, "kill", "before"), nem(2, 2e9, "restart", "after"), send(3, 12e9, after, o)}
}

func TestResultsLiveIsFalseOnlyWhenNeverRecovered(t *testing.T) {
	for _, c := range []struct {
		after histories.Type
		live  bool
	}{{histories.OK, true}, {histories.Info, false}} {
		res, err := checkers.Check(checkers.Ops(killedHistory(c.after)), checkers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := WriteResults(dir, &Outcome{Result: res, Held: true}, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, report.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Live     *bool              `json:"live"`
			Held     bool               `json:"guarantee-held"`
			Liveness *checkers.Liveness `json:"liveness"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.Live == nil || *got.Live != c.live || !got.Held || got.Liveness == nil || got.Liveness.Live != c.live {
			t.Fatalf("send %s after the heal: results.json live %v, held %v, liveness %+v; want live %v, held", c.after, got.Live, got.Held, got.Liveness, c.live)
		}
	}
}
