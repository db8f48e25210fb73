package realbroker

import (
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// VerifyTimeout bounds a check that a signal, an engine call or a rule took
// effect: the kernel and the engine act within milliseconds, so seconds
// leave room for loaded cores, and more would only delay reporting a fault
// that did not fire.
const VerifyTimeout = 5 * time.Second

// ProcessChecks say how a provider checks what it did to a node's process
// (a JVM, a container): the part of its verification that is its own.
type ProcessChecks struct {
	Kill, Stop, Pause, Resume string
}

// VerifiedEffect says what the hook for effect (a cluster.Effect's name)
// checks before it returns nil (cluster.EffectVerifier); "" for an effect
// the provider cannot cause.
func (c *Cluster) VerifiedEffect(effect string) string {
	own := c.checks
	switch effect {
	case "kill":
		return own.Kill
	case "stop":
		return own.Stop
	case "pause":
		return own.Pause
	case "resume":
		return own.Resume
	case "restart":
		return "listener accepts connections; " + Registered
	case "cut", "heal", "packet-loss":
		return TableListed
	case "slow-link":
		return QdiscListed
	case "clock":
		return ClockProbed
	case "remove-voter":
		return RemoveVoterVerified
	case "add-voter":
		return AddVoterVerified
	case "toxic":
		return kproxy.VerifiedToxic
	case "toxic-heal":
		return kproxy.VerifiedHeal
	case "reassign":
		return ReassignVerified
	case "unregister":
		return own.Stop + "; then " + UnregisterVerified
	case "add-broker":
		return AddBrokerVerified
	case "remove-added":
		return RemoveAddedVerified
	}
	return ""
}
