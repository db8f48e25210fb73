package java

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/client/java/javatest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

func startCluster(t testing.TB) *embedded.Provider {
	t.Helper()
	return embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: 2}}})
}

func newTestProducer(t *testing.T, e *embedded.Provider, rec client.Recorder, cfg client.ProducerConfig, lanes int) *Producer {
	t.Helper()
	javatest.NeedJDK(t)
	p, err := NewProducer(t.Context(), ProducerOptions{Bootstrap: e.Bootstrap(), Config: cfg, Keys: client.SequentialKeys("t", 2),
		Recorder: rec, Processes: &client.Processes{}, Lanes: lanes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	t.Logf("JVM started in %v", p.Started)
	return p
}

func TestJavaProducerRecordsOffsets(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, rec, client.ProducerConfig{Acks: "all", Idempotence: true}, 4)
	done := make(chan histories.Type, 40)
	for v := range int64(40) {
		if err := p.SendAsync(t.Context(), v%2, v, func(typ histories.Type) { done <- typ }); err != nil {
			t.Fatal(err)
		}
	}
	for range 40 {
		<-done
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	seen := map[histories.Key]map[int64]bool{0: {}, 1: {}}
	oks := 0
	for _, o := range ops {
		if o.Type == histories.OK {
			oks++
			m := o.Mops[0]
			if m.Offset < 0 || seen[m.Key][m.Offset] {
				t.Fatalf("op %d: offset %d of key %d missing or repeated", o.Index, m.Offset, m.Key)
			}
			seen[m.Key][m.Offset] = true
		}
	}
	if oks != 40 || len(ops) != 80 {
		t.Fatalf("%d ok of %d ops, want 40 of 80", oks, len(ops))
	}
}

// A record over max.request.size is refused by send() before the append:
// nothing was sent, so the send is a definite failure.
func TestJavaProducerRecordTooLargeIsFail(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, rec, client.ProducerConfig{Acks: "all", Extra: map[string]any{"max.request.size": 8}}, 1)
	if typ := clienttest.SendOne(t, p, 0, 123456789); typ != histories.Fail {
		t.Fatalf("oversized record: %s (%v), want fail", typ, rec.Ops())
	}
	if err := rec.Ops()[1].Error; err == "" {
		t.Fatal("the fail op names no exception")
	}
}

func TestJavaProducerCrashKillsTheJVM(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, rec, client.ProducerConfig{Acks: "all"}, 2)
	clienttest.CheckCrashMidSend(t, e, p)
	pid := p.jvm.cmd.Process.Pid
	select {
	case <-p.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the JVM was not reaped 10s after the crash")
	}
	if ws := p.jvm.cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signal() != syscall.SIGKILL {
		t.Fatalf("JVM %d ended by %v, want SIGKILL", pid, p.jvm.cmd.ProcessState)
	}
	clienttest.CheckCrashed(t, p, client.ErrCrashed, rec.Ops, 2)
}

// A JVM that dies unasked (here killed from outside) ends the producer:
// its open sends info, a crash op per lane, and sends refused naming it.
func TestJavaProducerJVMDeathEndsTheProducer(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, rec, client.ProducerConfig{Acks: "all"}, 2)
	if typ := clienttest.SendOne(t, p, 0, 1); typ != histories.OK {
		t.Fatalf("send %s", typ)
	}
	syscall.Kill(p.jvm.cmd.Process.Pid, syscall.SIGKILL)
	<-p.ended
	clienttest.CheckCrashed(t, p, errJVMDied, rec.Ops, 2)
}

func TestJavaProducerCloseCompletesEverySend(t *testing.T) {
	e := startCluster(t)
	rec := client.NewMemRecorder()
	p := newTestProducer(t, e, rec, client.ProducerConfig{Acks: "all"}, 4)
	clienttest.CheckCloseCompletesEverySend(t, e, p, rec.Ops)
	clienttest.CheckRefuses(t, p, client.ErrClosed)
}
