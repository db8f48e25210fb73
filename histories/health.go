package histories

import "encoding/json"

// Health is what a nemesis op's value says, under "health", of the
// cluster health check made around it: before a fault starts on a cluster
// no other fault holds, and after a heal once no fault holds. A check
// after a heal that gave up (Healthy false, not Deferred, Unhealthy saying
// what was not whole) means the
// cluster did not recover in the time allowed although the fault's own
// undo was verified: the system under test's finding, not the harness's.
type Health struct {
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

// NotRecoveredOf is the health check of a nemesis heal op after which the
// cluster did not become healthy, and true; false for any other op, and
// for a heal that failed (its op has an error: then the harness could not
// undo the fault, and the cluster's state says nothing of Kafka).
func NotRecoveredOf(op *Op) (Health, bool) {
	if _, edge := FaultOf(op); edge != EdgeStop || op.Error != "" || len(op.Value) == 0 || op.Value[0] != '{' {
		return Health{}, false
	}
	var v struct {
		Health *Health `json:"health"`
	}
	if json.Unmarshal(op.Value, &v) != nil || v.Health == nil {
		return Health{}, false
	}
	h := *v.Health
	return h, h.When == "after" && !h.Healthy && !h.Deferred && h.Unhealthy != ""
}
