package nemesis

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// WorkerPool is the hook into a run's client workers that client crashes
// need: the pool picks a worker, crashes it (client.Producer.Crash,
// client.Consumer.Crash) and replaces it with one under a fresh process id.
type WorkerPool interface {
	CrashWorker(ctx context.Context) (crashed []int64, err error)
}

// Group is a consumer group whose membership can churn. Each method
// returns the process id of the member concerned.
type Group interface {
	Join(ctx context.Context) (int64, error)
	Leave(ctx context.Context) (int64, error)
	CrashMember(ctx context.Context) (int64, error)
}

// ClientCrash crashes one worker of pool at Start; a crash is not undone,
// so Stop does nothing.
func ClientCrash(pool WorkerPool) Fault {
	var last []int64
	return &instantFault{name: "crash-client", move: func(ctx context.Context) (any, error) {
		crashed, err := pool.CrashWorker(ctx)
		last = crashed
		return map[string][]int64{"processes": last}, err
	}}
}

// churn makes members of a group join, leave and crash every interval while
// active, causing rebalances.
type churn struct {
	g     Group
	every time.Duration

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	counts map[string]int
	errs   []string
}

// ConsumerChurn churns g every interval between Start and Stop.
func ConsumerChurn(g Group, every time.Duration) Fault {
	return &churn{g: g, every: every, counts: map[string]int{}}
}

func (c *churn) Name() string                 { return "consumer-churn" }
func (c *churn) Events() (start, stop string) { return "churn-start", "churn-stop" }

func (c *churn) Detail() any {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := map[string]any{}
	for k, v := range c.counts {
		d[k] = v
	}
	if len(c.errs) > 0 {
		d["errors"] = append([]string(nil), c.errs...)
	}
	return d
}

func (c *churn) Start(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel, c.done = cancel, make(chan struct{})
	go c.loop(ctx)
	return nil
}

func (c *churn) loop(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(c.every)
	defer t.Stop()
	actions := []struct {
		name string
		do   func(context.Context) (int64, error)
	}{{"joined", c.g.Join}, {"left", c.g.Leave}, {"crashed", c.g.CrashMember}}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		a := actions[rand.IntN(len(actions))]
		_, err := a.do(ctx)
		c.mu.Lock()
		if err != nil {
			c.errs = append(c.errs, a.name+": "+err.Error())
		} else {
			c.counts[a.name]++
		}
		c.mu.Unlock()
	}
}

func (c *churn) Stop(context.Context) error {
	c.mu.Lock()
	cancel, done := c.cancel, c.done
	c.cancel = nil
	c.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	return nil
}
