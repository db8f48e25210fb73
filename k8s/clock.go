package k8s

import (
	"errors"

	"github.com/kafkachaos/kafkachaos/generators"
)

// kafkaContainer is the broker container's name in a Strimzi pod.
const kafkaContainer = "kafka"

// clockSkewStep moves the target's broker clocks by Params.Offset for the
// window; a strobe, which flips them back and forth, has no equivalent.
func clockSkewStep(f generators.Fault, e env) (Template, []string, error) {
	if f.Params.Mode == generators.ClockStrobe {
		return Template{}, nil, errors.New("a strobe flips the clocks back and forth within the window; " +
			"TimeChaos holds one offset (render each flip as its own step to approximate it)")
	}
	sel, notes := e.aim(f, "one")
	return Template{Type: TypeTimeChaos, TimeChaos: &TimeChaosSpec{PodSelector: sel, ContainerNames: []string{kafkaContainer},
			TimeOffset: f.Params.ClockOffset().String()}},
		append(notes, "TimeChaos moves the clock the JVM reads through the vDSO (CLOCK_REALTIME), not the node's"), nil
}
