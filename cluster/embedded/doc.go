// Package embedded is the cluster provider that runs franz-go's kfake
// inside the test process: several brokers on loopback ports, no Java, no
// Docker, the default for `go test ./... -run Chaos` on a bare machine.
//
// It implements cluster.Provider and the hooks kfake can honour (NodeKiller,
// NodePauser, LeaderMover, RequestFaulter, HealthChecker, EffectVerifier),
// and client.MemberFencer's FenceClient. Fake exposes the kfake cluster
// itself for tests that need a fault no hook describes.
//
// This package must not know about histories, workloads, nemeses or
// checkers, and nothing above cluster/ should need it except the place that
// picks a provider by name (runner's registry) and tests.
package embedded
