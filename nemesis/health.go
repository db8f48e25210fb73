package nemesis

import (
	"context"
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/histories"
)

// healthBefore waits for health before a fault starts on a cluster no
// other fault holds; it returns nil when there is nothing to record. An
// unhealthy cluster does not stop the start: the op says so.
func (r *runner) healthBefore(ctx context.Context) *histories.Health {
	if r.health == nil {
		return nil
	}
	if names := r.activeNames(); len(names) > 0 {
		return &histories.Health{When: "before", Deferred: true, Active: names}
	}
	h, _ := r.waitHealthy(ctx, "before", r.within)
	return h
}

// healthAfter waits for health after a fault stopped, once no fault
// holds, at most within; a check that gave up says what was not whole.
func (r *runner) healthAfter(ctx context.Context, within time.Duration) *histories.Health {
	if r.health == nil {
		return nil
	}
	if names := r.activeNames(); len(names) > 0 {
		return &histories.Health{When: "after", Deferred: true, Active: names}
	}
	r.owed = 0
	// Detached, like the heal itself: a run ending is no reason to skip
	// the check that its cluster came back.
	h, _ := r.waitHealthy(context.WithoutCancel(ctx), "after", within)
	return h
}

// healthPoll is the pause between health probes: a probe of a real cluster
// is a few requests, and a heal takes seconds, not milliseconds.
const healthPoll = 250 * time.Millisecond

// waitHealthy polls r.health until it is healthy, at most within.
func (r *runner) waitHealthy(ctx context.Context, when string, within time.Duration) (*histories.Health, error) {
	h := &histories.Health{When: when, Checked: r.health.HealthChecked()}
	waited, err := WaitHealthy(ctx, r.health, within)
	h.Waited = waited.Round(time.Millisecond).String()
	h.Healthy = err == nil
	if err != nil {
		h.Unhealthy = err.Error()
	}
	return h, err
}

// WaitHealthy polls hc until the cluster is whole, at most within; it
// returns how long it waited and, when the wait gave up, what was not
// whole at the last probe.
func WaitHealthy(ctx context.Context, hc cluster.HealthChecker, within time.Duration) (time.Duration, error) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	for {
		err := hc.Healthy(ctx)
		if err == nil {
			return time.Since(began), nil
		}
		select {
		case <-ctx.Done():
			return time.Since(began), err
		case <-time.After(healthPoll):
		}
	}
}

func (r *runner) activeNames() []string {
	var names []string
	for _, f := range r.active {
		names = append(names, f.Name())
	}
	slices.Sort(names)
	return names
}
