// Package k8s renders a scenario as Kubernetes objects: the harness as a
// batch/v1 Job (one `kafkachaos run` of the scenario, or an Indexed Job of
// `kafkachaos explore` shards) with a ConfigMap holding the scenario and
// an inventory that names the cluster's bootstrap service, and the
// scenario's fault schedule as one Chaos Mesh Workflow whose steps are
// PodChaos, NetworkChaos, TimeChaos and IOChaos experiments aimed at a
// Strimzi cluster's pods by their labels.
//
// A fault kind that acts on the harness's own clients stays in the
// harness's scenario; a kind Chaos Mesh cannot express is reported with
// the reason (Rendered.Notes), never dropped in silence, and so is every
// way a rendered experiment differs from the harness's own fault.
//
// This package must not know how a cluster is reached or a fault injected:
// it never talks to Kubernetes, Kafka or Chaos Mesh. Its output is text;
// what it knows of Chaos Mesh is the few typed fields it emits (chaosmesh.go).
package k8s
