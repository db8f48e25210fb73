// Package kafkadist fetches a pinned Apache Kafka release's jars from Maven
// Central into a cache outside the repository and tells where they are.
//
// It is the single "get Kafka" step: the make target `kafka` runs it through
// the fetchkafka command, and cluster providers call Ensure before starting
// brokers, so a clean clone needs nothing by hand but Java 17 and Maven.
// A cache entry is complete only when its marker file exists; the marker is
// written last, so an interrupted fetch is redone, never half used.
//
// A broker is then `java -cp <Dist.Classpath()> kafka.Kafka server.properties`
// (TestEnsureFetchesOnceAndReusesCache checks the fetch and the cache):
//
//	d, err := kafkadist.Ensure(ctx, "") // KAFKA_VERSION or DefaultVersion
//
// It must not know about brokers, networks or runs: it only produces a
// directory of jars.
package kafkadist
