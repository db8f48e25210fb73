// Package external is the cluster provider "external": the user's own
// Kafka cluster, on hosts the harness drives over SSH, as Jepsen's control
// node drives its database nodes. It starts no broker: the cluster exists.
//
// An inventory file (YAML or JSON; inventory.go) names the clients'
// bootstrap servers and, per host, its SSH address, user and key file
// (never a password), the host-key policy (a known_hosts file, or an
// explicit insecure-ignore-host-key), its node id and roles, and how to
// start, stop and find its node's process (a systemd unit, or shell
// commands). It must also say `harm: allowed`: without it Load refuses the
// file, because the provider kills, pauses and cuts off the brokers it is
// given.
//
// Start probes each host (root? nft usable?) and offers only the
// capabilities every host has; it then waits until the cluster serves and
// creates the run's topics. Faults are commands over SSH: kill is SIGKILL
// of the process find prints (or systemctl kill) and restart the start
// command (or systemctl start); a clean stop is the stop command
// (systemctl stop, or SIGTERM); pause and resume are SIGSTOP and SIGCONT,
// each verified in /proc; partitions are an nft table named
// kafkachaos_<run id> on each host, replaced as a whole and read back, and
// deleted by a heal, so that heals are idempotent. The table leaves the
// hosts' SSH port alone, so a cut never cuts the harness from a host. Stop
// heals everything, starts the nodes the run killed and deletes the topics
// it created; Clean removes what a crashed harness left (the tables,
// SIGSTOPs). Probe answers, before any run, what the hosts offer.
//
// externaltest stands in for a user's cluster in tests: the local
// provider's brokers, an sshd in each one's namespace.
//
// What does not depend on how a node is reached (admin requests,
// readiness, health, the bookkeeping of cuts, the wait after a restart) is
// internal/realbroker's Cluster, which Provider embeds.
//
// It must not know about histories, workloads or checkers, nor how the
// user's brokers were installed beyond what the inventory says.
package external
