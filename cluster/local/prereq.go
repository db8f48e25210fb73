package local

import "os"

// Missing lists what this machine lacks to run real brokers: Java and Maven
// always (to fetch and run Kafka), root, ip and nft for network namespaces
// and partitions (needRoot). Tests skip on a developer's machine that lacks
// them and fail under CI, where .ci/run installs them.
func Missing(needRoot bool) []string {
	var missing []string
	if needRoot && os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces)")
	}
	for _, tool := range []string{"java", "mvn", "ip", "nft"} {
		if !have(tool) && (needRoot || tool == "java" || tool == "mvn") {
			missing = append(missing, tool)
		}
	}
	return missing
}
