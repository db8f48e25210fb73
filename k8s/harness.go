package k8s

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kafkachaos/kafkachaos/generators"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Where the harness's pods find the ConfigMap's files.
const (
	configDir     = "/etc/kafkachaos"
	ScenarioFile  = configDir + "/scenario.json"
	InventoryFile = configDir + "/inventory.yaml"
	configVolume  = "config"
)

// harnessScenario is the scenario the harness runs: on the external
// cluster, which has none of the features the harness gives the brokers
// it starts (proxies, lazyfs disks, clocks, a dynamic quorum, broker
// configs: see clusterNotes), with only the faults it plays on its own
// clients (Chaos Mesh plays the others).
func harnessScenario(s generators.Scenario) generators.Scenario {
	s.Cluster = generators.Cluster{Provider: "external", Brokers: s.Cluster.Brokers}
	s.Replay = ""
	var own []generators.Fault
	for _, f := range s.Nemesis {
		if harnessKind(f.Kind) {
			own = append(own, f)
		}
	}
	s.Nemesis = own
	return s
}

// clusterNotes say what of the scenario's cluster the harness cannot give
// a cluster it did not start: its broker configs belong in the Kafka
// resource.
func clusterNotes(c generators.Cluster) []string {
	if len(c.BrokerConfigs) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(c.BrokerConfigs))
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + c.BrokerConfigs[k]
	}
	return []string{"the scenario's broker configs are not applied: set them in the Kafka resource's spec.kafka.config: " +
		strings.Join(pairs, ", ")}
}

// configMap holds the harness's scenario and the inventory that names the
// cluster's bootstrap service.
func configMap(name string, o Options, labels map[string]string, s generators.Scenario) (corev1.ConfigMap, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return corev1.ConfigMap{}, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	return corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels},
		Data: map[string]string{
			"scenario.json":  string(b) + "\n",
			"inventory.yaml": fmt.Sprintf("# The Kafka cluster the harness runs against.\nbootstrap: %s\n", o.Bootstrap),
		},
	}, nil
}

// job runs the harness: one `kafkachaos run` of the scenario, or with
// o.Shards an Indexed Job whose pod i runs shard i+1 of
// `kafkachaos explore` (a shell works out the 1-based shard from
// JOB_COMPLETION_INDEX). A failed pod is not retried: its exit status is
// the verdict.
func job(name string, o Options, labels map[string]string, seed int64) batchv1.Job {
	cluster := []string{"--cluster", "external", "--inventory", InventoryFile}
	c := corev1.Container{Name: "kafkachaos", Image: o.Image,
		Command:      append([]string{"kafkachaos", "run", "--scenario", ScenarioFile}, cluster...),
		VolumeMounts: []corev1.VolumeMount{{Name: configVolume, MountPath: configDir, ReadOnly: true}}}
	spec := batchv1.JobSpec{BackoffLimit: new(int32(0))}
	if o.Shards > 0 {
		c.Command = []string{"sh", "-c", fmt.Sprintf("exec kafkachaos explore --shard $((JOB_COMPLETION_INDEX+1))/%d --seed %d %s",
			o.Shards, seed, strings.Join(cluster, " "))}
		mode := batchv1.IndexedCompletion
		spec.CompletionMode, spec.Completions, spec.Parallelism = &mode, new(int32(o.Shards)), new(int32(o.Shards))
	}
	spec.Template = corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{c},
			Volumes: []corev1.Volume{{Name: configVolume, VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}}},
	}
	return batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels},
		Spec:       spec,
	}
}
