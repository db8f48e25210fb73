SHELL := /bin/bash
# kafkachaos — see README.md. `make chaos` runs the chaos suite on the embedded
# cluster and writes reports under runs/; `make test` runs every test.

GO        ?= go
CLUSTER   ?= embedded
TIMEOUT   ?= 20m
RUNS_DIR  ?= $(CURDIR)/runs

# faults-doc writes the fault reference, docs/faults.md, from the fault-kind
# registry (generators/kind_*.go); a generators test fails when it is stale.
.PHONY: faults-doc
faults-doc:
	$(GO) run ./internal/faultsdoc -o docs/faults.md

.PHONY: versions build test test-unit setup matrix clients soak chaos chaos-local chaos-docker docker-engine docker-engine-stop docker-image bench fuzz clean vet kafka probe-kafka-17754 hunt-kafka-17754

build:
	$(GO) build -o bin/kafkachaos ./cmd/kafkachaos

vet:
	$(GO) vet ./...

# test sets up what it can, runs every package's tests (never from the
# test cache: the chaos tests talk to real clusters) with the delivery
# claims on brokers in containers beside them, then the claims on real Kafka
# brokers as local processes (short profiles: one attempt per claim, a
# second for an anomaly the first missed), and ends with a summary naming what ran,
# what failed and every test that skipped, with its reason. As root,
# scripts/setup.sh installs what the tests need (the same set-up as .ci/run)
# and starts the project's Docker engine, which is stopped again at the end
# if make test started it. Without root it says what is missing and the
# command that installs it, and the real-Kafka tests skip (under CI=true
# they fail instead). JUnit XML and the go test -json streams: $(TEST_OUT).
TEST_OUT  ?= $(RUNS_DIR)/test
# chaostest's acks=1 example on real Kafka (chaostest/examples/ctp) runs in
# make chaos-local, not here: whether its leader failover lands on
# unreplicated output depends on where the input and output leaders fall
# (caught on attempt 1 and 3 of two runs here, 0 of 3 in one CI run).
# SECOND_KAFKA is the release line make test also runs one claim on, so a
# provider change that only the default release survives fails CI.
SECOND_KAFKA ?= 3.9.1
MODULE    := github.com/kafkachaos/kafkachaos
GOTESTSUM  = $(GO) tool gotestsum --format pkgname --hide-summary=skipped
SUMMARIZE  = $(GO) run ./internal/testsummary/summarize -trim $(MODULE)
# -p 4 -parallel 4: the packages' tests wait on timers and clusters far more
# than they compute (the whole pass: 133 s of CPU in 382 s of wall time), so
# four packages at a time, and within the root and client packages their
# slow embedded-cluster tests side by side (t.Parallel; the real-cluster ones
# stay one at a time): the root package 296 s -> 115 s, the client package
# 170 s -> 95 s.
UNIT_TESTS = $(GOTESTSUM) --jsonfile $(TEST_OUT)/unit.json --junitfile $(TEST_OUT)/unit.xml -- \
	-count=1 -p 4 -parallel 4 -timeout $(TIMEOUT) -skip '^TestChaos(Local|Docker|External)' ./...
# The docker pass follows the unit pass and holds every test that runs
# brokers in containers (the provider's own fault checks in cluster/docker
# and the root package's claims), one package at a time: beside the unit
# pass six more JVMs on two cores made a container restart, an isolation and
# a produce outlast their bounds. The local passes follow, one run at a time.
DOCKER_TESTS = KAFKACHAOS_CLUSTER=docker KAFKACHAOS_PROFILE=short $(GOTESTSUM) --jsonfile $(TEST_OUT)/docker.json \
	--junitfile $(TEST_OUT)/docker.xml -- -count=1 -p 1 -timeout 20m -run ChaosDocker . ./cluster/docker
test:
	@mkdir -p $(TEST_OUT) && rm -f $(TEST_OUT)/*.json $(TEST_OUT)/*.xml
	@trap 'scripts/setup.sh release $(TEST_OUT)/engine-started' EXIT; \
	scripts/setup.sh prepare $(TEST_OUT)/engine-started || exit $$?; \
	export DOCKER_HOST=$(KAFKACHAOS_DOCKER_HOST) KAFKACHAOS_DOCKER=1; status=0; \
	$(UNIT_TESTS) || status=1; \
	$(DOCKER_TESTS) || status=1; \
	KAFKACHAOS_CLUSTER=local KAFKACHAOS_PROFILE=short $(GOTESTSUM) --jsonfile $(TEST_OUT)/local.json --junitfile $(TEST_OUT)/local.xml -- \
		-count=1 -timeout 20m -run 'Chaos(Local|External)' . || status=1; \
	KAFKA_VERSION=$(SECOND_KAFKA) KAFKACHAOS_CLUSTER=local KAFKACHAOS_PROFILE=short $(GOTESTSUM) --jsonfile $(TEST_OUT)/local-$(SECOND_KAFKA).json \
		--junitfile $(TEST_OUT)/local-$(SECOND_KAFKA).xml -- -count=1 -timeout 10m -run 'ChaosLocalAcksAllIdempotentSafe$$' . || status=1; \
	echo; $(SUMMARIZE) $(TEST_OUT)/unit.json $(TEST_OUT)/local.json $(TEST_OUT)/local-$(SECOND_KAFKA).json $(TEST_OUT)/docker.json || status=1; \
	echo "JUnit XML and go test -json streams: $(TEST_OUT)"; exit $$status

# test-unit is make test without set-up and without the real-Kafka suites:
# every package's tests and the embedded chaos suite (the pull-request job).
test-unit:
	@mkdir -p $(TEST_OUT) && rm -f $(TEST_OUT)/*.json $(TEST_OUT)/*.xml
	@status=0; $(UNIT_TESTS) || status=1; echo; $(SUMMARIZE) $(TEST_OUT)/unit.json || status=1; exit $$status

# setup installs everything make test needs, as root (sudo env "PATH=$$PATH"
# make setup): Debian packages, Kafka jars, docker.io and the Kafka image.
# It leaves no engine running that it started.
setup:
	scripts/setup.sh

chaos: build
	mkdir -p $(RUNS_DIR)
	KAFKACHAOS_CLUSTER=$(CLUSTER) KAFKACHAOS_RUNS=$(RUNS_DIR) KAFKACHAOS_KEEP=1 \
		$(GO) test -timeout $(TIMEOUT) -count=1 -run Chaos -v . 2>&1 | tee $(RUNS_DIR)/chaos.log | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|run dir|report|faults fired per draw|never fired|failed to heal' ; \
		status=$${PIPESTATUS[0]}; echo "reports: $(RUNS_DIR) (full log: $(RUNS_DIR)/chaos.log; open a run's index.html)"; exit $$status

# chaos-local runs the delivery claims on 3 real brokers in network
# namespaces (PROFILE=full: up to 3 attempts of a minute per claim).
PROFILE ?= full
chaos-local: build kafka
	mkdir -p $(RUNS_DIR)
	KAFKACHAOS_CLUSTER=local KAFKACHAOS_PROFILE=$(PROFILE) KAFKACHAOS_RUNS=$(RUNS_DIR) KAFKACHAOS_KEEP=1 \
		$(GO) test -timeout 60m -count=1 -p 1 -run 'Chaos(Local|External)' -v . ./chaostest/examples/ctp 2>&1 | tee $(RUNS_DIR)/chaos-local.log | \
		grep -E '^(=== RUN|--- |ok|FAIL|PASS)|CLAIM|THROUGHPUT|TIME TO|MIN.ISR|attempt|run dir' ; \
		status=$${PIPESTATUS[0]}; echo "reports: $(RUNS_DIR) (full log: $(RUNS_DIR)/chaos-local.log)"; exit $$status

# probe-kafka-17754 runs the probes of docs/FINDINGS.md on each release of
# PROBE_VERSIONS, on local brokers (root): produce requests of a
# transactional copy held past the client's own timeouts, librdkafka's and
# the Java client's (committed by the next transaction before 3.6, refused
# from 3.6), and EndTxn requests of
# Java txn queues held until the next transaction is open (KAFKA-17754 on
# 3.x, fenced by transaction version 2 on 4.x).
PROBE_VERSIONS ?= 3.3.2 3.9.1 4.4.0
probe-kafka-17754: build kafka
	mkdir -p $(RUNS_DIR)
	@status=0; for v in $(PROBE_VERSIONS); do \
		KAFKA_VERSION=$$v KAFKACHAOS_CLUSTER=local KAFKACHAOS_RUNS=$(RUNS_DIR) KAFKACHAOS_KEEP=1 \
			$(GO) test -count=1 -timeout 15m -run '^TestChaosLocal(DelayedProduceOutlivesTheClient|JavaLateProduce|JavaLateEndTxn)$$' -v . || status=1; \
	done; echo "reports: $(RUNS_DIR)/TestChaosLocal{DelayedProduceOutlivesTheClient,JavaLateProduce,JavaLateEndTxn}"; exit $$status

# hunt-kafka-17754 runs the hunt of docs/FINDINGS.md (scripts/hunt.sh): a
# 30-minute explore campaign of the txn space per Kafka release and client,
# one after another, on local brokers (root); HUNT_LINES picks lines
# (VERSION:CLIENT, e.g. 3.3.2:java@3.8.0), HUNT_DURATION their length.
HUNT_LINES ?=
HUNT_DURATION ?= 30m
hunt-kafka-17754: build kafka
	DURATION=$(HUNT_DURATION) OUT=$(RUNS_DIR)/hunt scripts/hunt.sh $(HUNT_LINES)

# The docker provider's engine (its own socket and data root) and the Kafka
# image, built locally from the same jars when apache/kafka cannot be pulled.
KAFKACHAOS_DOCKER_HOST ?= unix:///run/kafkachaos-docker.sock
docker-engine:
	scripts/dockerd.sh start
docker-engine-stop:
	scripts/dockerd.sh stop
docker-image: docker-engine kafka
	DOCKER_HOST=$(KAFKACHAOS_DOCKER_HOST) $(GO) run ./cluster/docker/buildimage

# chaos-docker builds (or pulls) the image and runs the chaos suite on a
# 3-broker containerized cluster, then removes what the runs left.
chaos-docker: docker-image build
	mkdir -p $(RUNS_DIR)
	DOCKER_HOST=$(KAFKACHAOS_DOCKER_HOST) KAFKACHAOS_CLUSTER=docker KAFKACHAOS_PROFILE=$(PROFILE) \
		KAFKACHAOS_RUNS=$(RUNS_DIR) KAFKACHAOS_KEEP=1 $(GO) test -count=1 -timeout 60m -run ChaosDocker -v . ; \
		status=$$?; DOCKER_HOST=$(KAFKACHAOS_DOCKER_HOST) bin/kafkachaos clean; echo "reports: $(RUNS_DIR)"; exit $$status

# soak repeats a safe configuration under broker faults (SOAK_RUNS runs,
# 50 by default; CLUSTER=local SOAK_RUNS=10 on real brokers) and weak ones
# beside it, and prints the table: no anomaly or harness error in any safe
# run, every weak configuration still showing its anomaly. Not in make test.
SOAK_RUNS ?= 50
soak: build
	KAFKACHAOS_CLUSTER=$(CLUSTER) KAFKACHAOS_SOAK=$(SOAK_RUNS) $(GO) test -count=1 -timeout 90m -run '^TestSoak$$' -v . 2>&1 | \
		grep -E '^(--- |ok|FAIL|PASS|SOAK)|^ +(configuration|safe|retries|commit|acks)|run [0-9]+:' ; exit $${PIPESTATUS[0]}

# matrix runs the configuration x fault table live on CLUSTER and writes
# MATRIX.md and matrix.html under $(RUNS_DIR)/matrix.
matrix: build
	bin/kafkachaos matrix --cluster $(CLUSTER) --out $(RUNS_DIR)/matrix

# clients runs a few rows and columns of the table once per built client and
# writes CLIENTS.md and clients.html under $(RUNS_DIR)/clients.
clients: build
	bin/kafkachaos clients --cluster $(CLUSTER) --out $(RUNS_DIR)/clients

# clients-doc regenerates docs/evidence/clients/kafka-<version>/: the
# differential on local Kafka of each of CLIENTS_VERSIONS, with each run's
# scenario.json and results.json.
CLIENTS_VERSIONS ?= 4.4.0 3.9.1
clients-doc: build kafka
	VERSIONS="$(CLIENTS_VERSIONS)" scripts/clients-doc.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzReadJSONL -fuzztime 60s ./histories
	$(GO) test -run '^$$' -fuzz FuzzReadEDN -fuzztime 60s ./histories
	$(GO) test -run '^$$' -fuzz '^FuzzEDNFast$$' -fuzztime 60s ./histories
	$(GO) test -run '^$$' -fuzz '^FuzzJSONLFast$$' -fuzztime 60s ./histories

# kafka fetches the pinned Apache Kafka jars (KAFKA_VERSION overrides) and
# the Java client (compiling its worker) into the cache outside the
# repository; tests and `kafkachaos run` do it too.
kafka:
	$(GO) run ./internal/kafkadist/fetchkafka
	KAFKA_VERSION=$(SECOND_KAFKA) $(GO) run ./internal/kafkadist/fetchkafka
	$(GO) run ./client/java/fetchjava
	$(GO) run ./client/java/fetchjava -version $(SECOND_KAFKA)

# versions runs package versions' fixed scenarios on each release line
# (KRaft: 3.3 on; 4.0 is left out, its runtime closure lacks the log4j2
# jars its distribution ships) and writes VERSIONS.md.
VERSIONS ?= 3.3.2,3.6.2,3.9.1,4.2.2,4.4.0
versions: build
	bin/kafkachaos versions --cluster $(CLUSTER:embedded=local) --versions $(VERSIONS) --out VERSIONS.md

clean:
	rm -rf bin

# history writes a synthetic JSONL history (internal/histgen: a correct
# simulated workload with planted lost writes and duplicates) for the
# benchmarks and docs/PERFORMANCE.md: make history OPS=10000000 OUT=h.jsonl
OPS ?= 1000000
OUT ?= history.jsonl
.PHONY: history perf
history:
	$(GO) run ./internal/histgen/gen -ops $(OPS) -keys 8 -processes 16 -lost 40 -dup 50 -seed 1 -trouble 100 -crash 10000 -o $(OUT)

# perf regenerates the figures of docs/PERFORMANCE.md (scripts/perf.sh;
# BASE=old/kafkachaos adds that binary's timings beside them).
perf:
	scripts/perf.sh
