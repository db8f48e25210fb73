package k8s

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The Chaos Mesh (chaos-mesh.org/v1alpha1) fields this package emits, and
// no others: Chaos Mesh's own Go module needs client-go and
// controller-runtime releases that do not build with the k8s.io/api
// release used here. JSON names and enums are those of Chaos Mesh's CRDs,
// which the tests check the output against.

// ChaosMeshAPIVersion is the API version of every Chaos Mesh object.
const ChaosMeshAPIVersion = "chaos-mesh.org/v1alpha1"

// Workflow runs templates from Spec.Entry: Serial and Parallel templates
// order their children, a Suspend template waits for its deadline, and a
// chaos template runs one experiment until its deadline.
type Workflow struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              WorkflowSpec `json:"spec"`
}

// WorkflowSpec names the entry template among Templates.
type WorkflowSpec struct {
	Entry     string     `json:"entry"`
	Templates []Template `json:"templates"`
}

// Template types.
const (
	TypeSerial       = "Serial"
	TypeParallel     = "Parallel"
	TypeSuspend      = "Suspend"
	TypePodChaos     = "PodChaos"
	TypeNetworkChaos = "NetworkChaos"
	TypeTimeChaos    = "TimeChaos"
	TypeIOChaos      = "IOChaos"
)

// Template is one step of a Workflow. A chaos template carries the spec of
// its Type and no duration of its own: its Deadline ends it.
type Template struct {
	Name         string            `json:"name"`
	Type         string            `json:"templateType"`
	Deadline     string            `json:"deadline,omitempty"`
	Children     []string          `json:"children,omitempty"`
	PodChaos     *PodChaosSpec     `json:"podChaos,omitempty"`
	NetworkChaos *NetworkChaosSpec `json:"networkChaos,omitempty"`
	TimeChaos    *TimeChaosSpec    `json:"timeChaos,omitempty"`
	IOChaos      *IOChaosSpec      `json:"ioChaos,omitempty"`
}

// Selector modes: how many of the selected pods an experiment acts on.
const (
	ModeOne   = "one"   // one, chosen at random
	ModeFixed = "fixed" // Value of them, chosen at random
	ModeAll   = "all"
)

// PodSelector picks the pods an experiment acts on.
type PodSelector struct {
	Selector Selector `json:"selector"`
	Mode     string   `json:"mode"`
	Value    string   `json:"value,omitempty"`
}

// Selector selects pods by namespace and labels.
type Selector struct {
	Namespaces     []string          `json:"namespaces,omitempty"`
	LabelSelectors map[string]string `json:"labelSelectors,omitempty"`
}

// PodChaos actions.
const (
	PodKill    = "pod-kill"    // delete the pod; its controller makes a new one
	PodFailure = "pod-failure" // stop its containers until the experiment ends
)

// PodChaosSpec kills pods or holds them failed.
type PodChaosSpec struct {
	PodSelector `json:",inline"`
	Action      string `json:"action"`
	GracePeriod int64  `json:"gracePeriod,omitempty"`
}

// NetworkChaos actions and directions.
const (
	NetPartition = "partition"
	NetDelay     = "delay"
	NetLoss      = "loss"
	NetBandwidth = "bandwidth"
	DirTo        = "to"   // packets from the selected pods to the target
	DirBoth      = "both" // packets either way between them
)

// NetworkChaosSpec acts on the selected pods' packets: all of them, or
// with a Target those to (Direction to) or between (both) the two sets.
type NetworkChaosSpec struct {
	PodSelector `json:",inline"`
	Action      string         `json:"action"`
	Direction   string         `json:"direction,omitempty"`
	Target      *PodSelector   `json:"target,omitempty"`
	Delay       *DelaySpec     `json:"delay,omitempty"`
	Loss        *LossSpec      `json:"loss,omitempty"`
	Bandwidth   *BandwidthSpec `json:"bandwidth,omitempty"`
}

// DelaySpec delays packets by Latency, varied by up to Jitter.
type DelaySpec struct {
	Latency string `json:"latency"`
	Jitter  string `json:"jitter,omitempty"`
}

// LossSpec drops Loss percent of packets.
type LossSpec struct {
	Loss string `json:"loss"`
}

// BandwidthSpec caps the rate (tc units: "8000bit" is bits per second),
// queueing up to Limit bytes with bursts of Buffer bytes.
type BandwidthSpec struct {
	Rate   string `json:"rate"`
	Limit  uint32 `json:"limit"`
	Buffer uint32 `json:"buffer"`
}

// TimeChaosSpec moves the selected containers' clocks by TimeOffset.
type TimeChaosSpec struct {
	PodSelector    `json:",inline"`
	ContainerNames []string `json:"containerNames,omitempty"`
	TimeOffset     string   `json:"timeOffset"`
}

// IOChaos action: fail the matching file operations with Errno.
const IOFault = "fault"

// IOChaosSpec fails Percent of the Methods on files under Path in the
// volume mounted at VolumePath.
type IOChaosSpec struct {
	PodSelector    `json:",inline"`
	ContainerNames []string `json:"containerNames,omitempty"`
	Action         string   `json:"action"`
	VolumePath     string   `json:"volumePath"`
	Path           string   `json:"path,omitempty"`
	Errno          uint32   `json:"errno,omitempty"`
	Methods        []string `json:"methods,omitempty"`
	Percent        int      `json:"percent,omitempty"`
}
