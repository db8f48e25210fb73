package java

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// items reads a poll's items as the JVM writes them.
func items(t *testing.T, s string) [][]json.RawMessage {
	t.Helper()
	var out [][]json.RawMessage
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func foldConsumer(commit client.CommitStrategy) *Consumer {
	return &Consumer{opts: ConsumerOptions{Keys: client.SequentialKeys("t", 2), Config: client.ConsumerConfig{Group: "g", Commit: commit}}}
}

// A partition revoked inside a poll takes the records fetched of it before
// the revoke out of the poll (into revoked-unprocessed) for a consumer
// that commits itself; an auto-committing one keeps them, and forgets the
// position it would commit.
func TestFoldDropsRecordsOfRevokedKeys(t *testing.T) {
	const poll = `[["rec","t",0,5,"10"],["rec","t",1,7,"11"],["rev","t",0],["asg","t",1],["rec","t",1,8,"12"]]`
	c := foldConsumer(client.CommitAfterProcessing)
	got := newFetched()
	if err := c.fold(items(t, poll), got); err != nil {
		t.Fatal(err)
	}
	want := map[histories.Key][]histories.Record{1: {{Offset: 7, Value: 11}, {Offset: 8, Value: 12}}}
	if !reflect.DeepEqual(got.records, want) || got.n != 2 || !reflect.DeepEqual(got.next, map[histories.Key]int64{1: 9}) {
		t.Errorf("after-processing kept %v (n %d, next %v), want %v", got.records, got.n, got.next, want)
	}
	if !reflect.DeepEqual(c.dropped, map[histories.Key][]histories.Record{0: {{Offset: 5, Value: 10}}}) {
		t.Errorf("dropped %v, want key 0's record", c.dropped)
	}
	if r := c.rebalance; r == nil || !reflect.DeepEqual(r.Revoked, []histories.Key{0}) || !reflect.DeepEqual(r.Assigned, []histories.Key{1}) {
		t.Errorf("rebalance %+v, want key 0 revoked and key 1 assigned", r)
	}

	auto := foldConsumer(client.CommitAuto)
	got = newFetched()
	if err := auto.fold(items(t, poll), got); err != nil {
		t.Fatal(err)
	}
	if got.n != 3 || auto.dropped != nil || !reflect.DeepEqual(auto.stored, map[histories.Key]int64{1: 9}) {
		t.Errorf("auto kept %d records (dropped %v), stored %v; want all 3 kept and only key 1's position", got.n, auto.dropped, auto.stored)
	}
}

func TestFoldRefusesWhatIsNoWorkloadRecord(t *testing.T) {
	for poll, want := range map[string]string{
		`[["rec","t",0,5,"x"]]`:  `key 0 offset 5: record value "x" is not a workload value`,
		`[["rec","u",0,5,"1"]]`:  `rec of partition "u":0, which no key maps to`,
		`[["rec","t",0,"five"]]`: "unreadable record",
	} {
		if err := foldConsumer(client.CommitNone).fold(items(t, poll), newFetched()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("fold(%s) = %v, want an error containing %q", poll, err, want)
		}
	}
}

// A crash point the strategy never passes is refused before anything is
// asked of the JVM, as client.Consumer refuses it.
func TestJavaConsumerRefusesUnreachableCrashPoints(t *testing.T) {
	for commit, points := range map[client.CommitStrategy][]client.CrashPoint{
		client.CommitAfterProcessing:  {client.CrashAfterCommit},
		client.CommitBeforeProcessing: {client.CrashBeforeCommit},
		client.CommitAuto:             {client.CrashBeforeCommit},
		client.CommitNone:             {client.CrashAfterCommit, client.CrashBeforeCommit},
	} {
		for _, p := range points {
			if err := foldConsumer(commit).Crash(p); !errors.Is(err, client.ErrUnreachableCrashPoint) {
				t.Errorf("commit %s, crash %v: %v, want ErrUnreachableCrashPoint", commit, p, err)
			}
		}
	}
}

func TestConsumerPropertiesSpellTheConfigInJavaTerms(t *testing.T) {
	for _, c := range []struct {
		cfg        client.ConsumerConfig
		want, lack []string
	}{
		{client.ConsumerConfig{Group: "g", Commit: client.CommitAuto, ReadCommitted: true, SessionTimeout: 6e9, AutoCommitEach: 1e8},
			[]string{"group.id=g", "enable.auto.commit=true", "isolation.level=read_committed", "session.timeout.ms=6000",
				"heartbeat.interval.ms=2000", "auto.commit.interval.ms=100", "interceptor.classes=KafkachaosWorker$CommitWatch",
				"auto.offset.reset=earliest", "client.id=kafkachaos-7"},
			[]string{"group.protocol=consumer"}},
		{client.ConsumerConfig{Group: "g", Commit: client.CommitAfterProcessing, SessionTimeout: 6e9, GroupProtocol: client.GroupConsumer},
			[]string{"group.protocol=consumer", "enable.auto.commit=false", "isolation.level=read_uncommitted"},
			[]string{"session.timeout.ms=6000", "heartbeat.interval.ms=2000", "interceptor.classes=KafkachaosWorker$CommitWatch"}},
		{client.ConsumerConfig{Commit: client.CommitNone}, []string{"enable.auto.commit=false"}, []string{"group.id=g"}},
	} {
		got, err := ConsumerProperties(c.cfg, "b:1", "kafkachaos-7")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%+v: properties %v lack %s", c.cfg, got, w)
			}
		}
		for _, l := range c.lack {
			if slices.Contains(got, l) {
				t.Errorf("%+v: properties %v have %s", c.cfg, got, l)
			}
		}
	}
	for _, bad := range []client.ConsumerConfig{{Group: "g", Commit: "transactional"}, {Commit: client.CommitAuto}, {Group: "g", GroupProtocol: "x"}} {
		if _, err := ConsumerProperties(bad, "b:1", "c"); err == nil || !strings.Contains(err.Error(), "java consumer") {
			t.Errorf("ConsumerProperties(%+v) = %v, want a java consumer error", bad, err)
		}
	}
}
