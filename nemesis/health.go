package nemesis

import (
	"context"
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// healthCheck is what a nemesis op records of the cluster health check
// made around it (WithHealth).
type healthCheck struct {
	// When is "before" (the start op) or "after" (the stop op).
	When string `json:"when"`
	// Healthy is the outcome; Deferred means no check was made because
	// other faults still hold (Active names them).
	Healthy  bool     `json:"healthy"`
	Deferred bool     `json:"deferred,omitempty"`
	Active   []string `json:"active,omitempty"`
	// Waited is how long the check took to see health, or gave up after.
	Waited  string `json:"waited,omitempty"`
	Checked string `json:"checked,omitempty"`
	// Unhealthy is what was not whole when the wait gave up.
	Unhealthy string `json:"unhealthy,omitempty"`
}

// healthBefore waits for health before a fault starts on a cluster no
// other fault holds; it returns nil when there is nothing to record. An
// unhealthy cluster does not stop the start: the op says so.
func (r *runner) healthBefore(ctx context.Context) *healthCheck {
	if r.health == nil {
		return nil
	}
	if names := r.activeNames(); len(names) > 0 {
		return &healthCheck{When: "before", Deferred: true, Active: names}
	}
	h, _ := r.waitHealthy(ctx, "before", r.within)
	return h
}

// healthAfter waits for health after a fault stopped, once no fault holds;
// its error (unhealthy at the end of the wait) is a failed heal.
func (r *runner) healthAfter(ctx context.Context) (*healthCheck, error) {
	if r.health == nil {
		return nil, nil
	}
	if names := r.activeNames(); len(names) > 0 {
		return &healthCheck{When: "after", Deferred: true, Active: names}, nil
	}
	// Detached, like the heal itself: a run ending is no reason to skip
	// the check that its cluster came back.
	within := r.owed
	r.owed = 0
	return r.waitHealthy(context.WithoutCancel(ctx), "after", within)
}

// healthPoll is the pause between health probes: a probe of a real cluster
// is a few requests, and a heal takes seconds, not milliseconds.
const healthPoll = 250 * time.Millisecond

// waitHealthy polls r.health until it is healthy, at most within.
func (r *runner) waitHealthy(ctx context.Context, when string, within time.Duration) (*healthCheck, error) {
	h := &healthCheck{When: when, Checked: r.health.HealthChecked()}
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
