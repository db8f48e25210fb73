package k8s

import "github.com/kafkachaos/kafkachaos/generators"

// killStep deletes the target's broker pods at once (no grace period: a
// SIGKILL, as the harness's kill).
func killStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(f, "one")
	return Template{Type: TypePodChaos, PodChaos: &PodChaosSpec{PodSelector: sel, Action: PodKill}},
		append(notes, "Kubernetes starts a deleted pod again at once: the broker is down for its restart, not for the whole window"), nil
}

// cleanRestartStep holds the target's broker containers failed for the
// window: Kubernetes stops them (SIGTERM, then SIGKILL after the pod's
// grace period) and starts them again when the experiment ends.
func cleanRestartStep(f generators.Fault, e env) (Template, []string, error) {
	sel, notes := e.aim(f, "one")
	return Template{Type: TypePodChaos, PodChaos: &PodChaosSpec{PodSelector: sel, Action: PodFailure}},
		append(notes, "pod-failure swaps the containers' image for a pause image: the broker stops with SIGTERM and the "+
			"pod's grace period, and its pod stays scheduled (not ready) for the window"), nil
}
