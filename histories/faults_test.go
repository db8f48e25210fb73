package histories_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// numbered gives ops the increasing indexes a history has.
func numbered(ops ...histories.Op) []histories.Op {
	for i := range ops {
		ops[i].Index, ops[i].Time = int64(i), int64(i)*1000
	}
	return ops
}

func nemOp(f, value string) histories.Op {
	op := histories.Op{Process: histories.NemesisProcess, Type: histories.Info, F: f}
	if value != "" {
		op.Value = json.RawMessage(value)
	}
	return op
}

// Every kind's events read back as that kind starting (or acting) and
// stopping, and survive the EDN export under Jepsen's names and the import
// back.
func TestFaultEventsOfEveryKind(t *testing.T) {
	for _, kind := range generators.Kinds() {
		instant := generators.Instantaneous(kind)
		startF, stopF := histories.FaultEvents(kind, instant)
		value := `{"fault":"` + kind + `","detail":{"nodes":[2]}}`
		wantStart := histories.EdgeStart
		if instant {
			wantStart = histories.EdgeInstant
		} else if startF != histories.FaultStart(kind) {
			t.Errorf("%s: start f %q, want %q", kind, startF, histories.FaultStart(kind))
		}
		ops := numbered(nemOp(startF, value), nemOp(stopF, value))
		for i, want := range []histories.Edge{wantStart, histories.EdgeStop} {
			if k, e := histories.FaultOf(&ops[i]); k != kind || e != want {
				t.Errorf("%s: FaultOf(%s) = %q, %v; want %q, %v", kind, ops[i].F, k, e, kind, want)
			}
		}
		var edn bytes.Buffer
		if err := histories.ExportEDN(&edn, histories.FromOps(ops)); err != nil {
			t.Fatal(err)
		}
		if !instant && strings.Contains(edn.String(), ":f :"+startF) {
			t.Errorf("%s: the EDN export keeps our name: %s", kind, edn.String())
		}
		back, _, err := histories.ReadEDN(&edn, "h.edn")
		if err != nil || !reflect.DeepEqual(back, ops) {
			t.Errorf("%s: EDN round trip: %v\n got %+v\nwant %+v", kind, err, back, ops)
		}
	}
}

// The names older histories and Jepsen's use read as the convention's.
func TestFaultOfOldNames(t *testing.T) {
	for _, c := range []struct {
		f, value, kind string
		edge           histories.Edge
	}{
		{"kill", `{"nodes":[2]}`, "kill", histories.EdgeStart},
		{"restart", `{"nodes":[2]}`, "kill", histories.EdgeStop},
		{"kill", `{"fault":"kill"}`, "kill", histories.EdgeStart},
		{"pause", ``, "pause", histories.EdgeStart},
		{"resume", ``, "pause", histories.EdgeStop},
		{"partition", `{"fault":"isolate-leader-replication"}`, "isolate-leader-replication", histories.EdgeStart},
		{"heal", `{"fault":"isolate-leader-replication"}`, "isolate-leader-replication", histories.EdgeStop},
		{"delay", `{"fault":"delay"}`, "delay", histories.EdgeStart},
		{"delay-heal", `{"fault":"delay"}`, "delay", histories.EdgeStop},
		{"power-loss", `{"fault":"power-loss"}`, "power-loss", histories.EdgeStart},
		{"pause-client", `{"fault":"pause-client"}`, "pause-client", histories.EdgeStart},
		{"resume-client", `{"fault":"pause-client"}`, "pause-client", histories.EdgeStop},
		{"crash-consumer", `{"fault":"crash-consumer"}`, "crash-consumer", histories.EdgeInstant},
		{"crash-consumer-done", `{"fault":"crash-consumer"}`, "crash-consumer", histories.EdgeStop},
		{"rolling-restart", `{"fault":"rolling-restart"}`, "rolling-restart", histories.EdgeInstant},
		{"clock-skew-start", `{"fault":"clock-skew"}`, "clock-skew", histories.EdgeStart},
		{"start-partition", `"majority"`, "partition", histories.EdgeStart},
		{"stop-partition", `null`, "partition", histories.EdgeStop},
		{"start", ``, "kill", histories.EdgeStop},
		{"bump-clock", `null`, "bump-clock", histories.EdgeInstant},
	} {
		op := nemOp(c.f, c.value)
		if k, e := histories.FaultOf(&op); k != c.kind || e != c.edge {
			t.Errorf("FaultOf(%s %s) = %q, %v; want %q, %v", c.f, c.value, k, e, c.kind, c.edge)
		}
	}
	client := histories.Op{Process: 3, Type: histories.OK, F: "kill"}
	if k, e := histories.FaultOf(&client); k != "" || e != histories.EdgeNone {
		t.Errorf("a client op read as a fault: %q, %v", k, e)
	}
}

// An op recorded under an older name is exported under Jepsen's and comes
// back under the convention's, meaning the same.
func TestEDNExportOfOldNames(t *testing.T) {
	ops := numbered(nemOp("kill", `{"fault":"kill"}`), nemOp("restart", `{"fault":"kill"}`),
		nemOp("partition", `{"fault":"bridge"}`), nemOp("heal", `{"fault":"bridge"}`), nemOp("kill", `{"nodes":[2]}`))
	var edn bytes.Buffer
	if err := histories.ExportEDN(&edn, histories.FromOps(ops)); err != nil {
		t.Fatal(err)
	}
	var fs []string
	for _, line := range strings.Split(strings.TrimSpace(edn.String()), "\n") {
		_, rest, _ := strings.Cut(line, ":f ")
		f, _, _ := strings.Cut(rest, ",")
		fs = append(fs, f)
	}
	if want := []string{":kill", ":start", ":start-partition", ":stop-partition", ":kill"}; !reflect.DeepEqual(fs, want) {
		t.Errorf("exported fs %v, want %v", fs, want)
	}
	back, _, err := histories.ReadEDN(&edn, "h.edn")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range back {
		got = append(got, back[i].F)
		k0, e0 := histories.FaultOf(&ops[i])
		if k, e := histories.FaultOf(&back[i]); k != k0 || e != e0 {
			t.Errorf("op %d: %q, %v after the round trip, %q, %v before", i, k, e, k0, e0)
		}
	}
	if want := []string{"kill-start", "kill-stop", "bridge-start", "bridge-stop", "kill"}; !reflect.DeepEqual(got, want) {
		t.Errorf("imported fs %v, want %v", got, want)
	}
}
