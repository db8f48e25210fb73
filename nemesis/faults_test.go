package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

func startCluster(t *testing.T) *embedded.Provider {
	t.Helper()
	return embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: 1}}})
}

func newProducer(t *testing.T, e *embedded.Provider, retries int) *client.Producer {
	t.Helper()
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Keys: client.SequentialKeys("t", 1),
		Recorder: client.NewMemRecorder(), Processes: &client.Processes{},
		Config: client.ProducerConfig{Acks: "all", Retries: &retries, DeliveryTimeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// during starts f, runs fn, stops f, and checks both were recorded.
func during(t *testing.T, f Fault, fn func()) {
	t.Helper()
	ctx := context.Background()
	if err := f.Start(ctx); err != nil {
		t.Fatalf("start %s: %v", f.Name(), err)
	}
	defer func() {
		if err := f.Stop(ctx); err != nil {
			t.Fatalf("stop %s: %v", f.Name(), err)
		}
		if err := f.Stop(ctx); err != nil {
			t.Fatalf("second stop of %s: %v", f.Name(), err)
		}
	}()
	fn()
}

func send(t *testing.T, p *client.Producer, v int64) (histories.Type, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan histories.Type, 1)
	if err := p.SendAsync(context.Background(), 0, v, func(typ histories.Type) { done <- typ }); err != nil {
		t.Fatal(err)
	}
	return <-done, time.Since(start)
}

func TestLostAckFiresAndHeals(t *testing.T) {
	e := startCluster(t)
	p := newProducer(t, e, 0)
	send(t, p, 0)
	f := LostAck(e, cluster.RequestFault{Topic: "t"}, 7)
	during(t, f, func() {
		if typ, _ := send(t, p, 1); typ != histories.Info {
			t.Fatalf("send under lost ack: %s, want info", typ)
		}
	})
	if f.(HitCounter).Hits() != 1 {
		t.Fatalf("hits = %d", f.(HitCounter).Hits())
	}
	if typ, _ := send(t, p, 2); typ != histories.OK {
		t.Fatalf("send after heal: %s", typ)
	}
}

func TestDelayAndDropFireAndHeal(t *testing.T) {
	e := startCluster(t)
	p := newProducer(t, e, 0)
	send(t, p, 0)
	during(t, Delay(e, cluster.RequestFault{Keys: []int16{0}}, 200*time.Millisecond), func() {
		if _, d := send(t, p, 1); d < 200*time.Millisecond {
			t.Fatalf("send under delay took %v", d)
		}
	})
	drop := DropConnections(e, cluster.RequestFault{Keys: []int16{0}})
	during(t, drop, func() {
		if typ, _ := send(t, p, 2); typ == histories.OK {
			t.Fatal("send through dropped connections ok")
		}
	})
	if drop.(HitCounter).Hits() == 0 {
		t.Fatal("drop fault never hit")
	}
	if typ, d := send(t, p, 3); typ != histories.OK || d > 150*time.Millisecond {
		t.Fatalf("after heal: %s in %v", typ, d)
	}
}

func TestKillPauseAndLeaderMovesFireAndHeal(t *testing.T) {
	e := startCluster(t)
	ctx := context.Background()
	p := newProducer(t, e, 10)
	send(t, p, 0)
	leader, _ := e.Leader(ctx, "t", 0)
	during(t, Kill(e, LeaderOf(e, "t", 0)), func() {
		if e.Nodes()[leader].Up {
			t.Fatal("killed leader still up")
		}
		if typ, _ := send(t, p, 1); typ != histories.OK {
			t.Fatalf("send after failover: %s", typ)
		}
	})
	if !e.Nodes()[leader].Up {
		t.Fatal("killed node not restarted")
	}
	leader, _ = e.Leader(ctx, "t", 0)
	pause := Pause(e, Nodes(leader))
	if err := pause.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, func() { pause.Stop(ctx) })
	if _, d := send(t, p, 2); d < 150*time.Millisecond {
		t.Fatalf("send to a paused leader took %v", d)
	}
	move := MoveLeader(e, e, "t", 0)
	during(t, move, func() {
		if now, _ := e.Leader(ctx, "t", 0); now == leader {
			t.Fatalf("leader still %d after a move", now)
		}
	})
	if typ, _ := send(t, p, 3); typ != histories.OK {
		t.Fatalf("send after the move: %s", typ)
	}
}
