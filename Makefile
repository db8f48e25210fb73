SHELL := /bin/bash
# kafkachaos — see README.md. `make chaos` runs the chaos suite on the embedded
# cluster and writes reports under runs/; `make test` runs every test.

GO        ?= go
CLUSTER   ?= embedded
TIMEOUT   ?= 20m
RUNS_DIR  ?= $(CURDIR)/runs

.PHONY: build test soak chaos chaos-local chaos-docker docker-engine docker-engine-stop docker-image bench fuzz clean vet kafka

build:
	$(GO) build -o bin/kafkachaos ./cmd/kafkachaos

vet:
	$(GO) vet ./...

# test runs every package's tests (never from the test cache: the chaos
# tests talk to real clusters), then the seed text's claims on real
# Kafka brokers, as local processes and in containers (short profiles: one
# attempt per claim). Real-Kafka tests skip on a machine without root, Java,
# Maven or a Docker engine (make docker-engine), and fail under CI=true.
test:
	$(GO) test -count=1 -timeout $(TIMEOUT) ./...
	KAFKACHAOS_CLUSTER=local KAFKACHAOS_PROFILE=short $(GO) test -count=1 -timeout 20m -run ChaosLocal .
	KAFKACHAOS_CLUSTER=docker KAFKACHAOS_PROFILE=short $(GO) test -count=1 -timeout 20m -run ChaosDocker .

chaos: build
	mkdir -p $(RUNS_DIR)
	KAFKACHAOS_CLUSTER=$(CLUSTER) KAFKACHAOS_RUNS=$(RUNS_DIR) KAFKACHAOS_KEEP=1 \
		$(GO) test -timeout $(TIMEOUT) -count=1 -run Chaos -v . 2>&1 | tee $(RUNS_DIR)/chaos.log | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|run dir|report' ; \
		status=$${PIPESTATUS[0]}; echo "reports: $(RUNS_DIR) (full log: $(RUNS_DIR)/chaos.log; open a run's index.html)"; exit $$status

# chaos-local runs the seed text's claims on 3 real brokers in network
# namespaces (PROFILE=full: up to 3 attempts of a minute per claim).
PROFILE ?= full
chaos-local: build kafka
	mkdir -p $(RUNS_DIR)
	KAFKACHAOS_CLUSTER=local KAFKACHAOS_PROFILE=$(PROFILE) KAFKACHAOS_RUNS=$(RUNS_DIR) KAFKACHAOS_KEEP=1 \
		$(GO) test -timeout 60m -count=1 -run 'ChaosLocal' -v . 2>&1 | tee $(RUNS_DIR)/chaos-local.log | \
		grep -E '^(=== RUN|--- |ok|FAIL|PASS)|CLAIM|THROUGHPUT|TIME TO|MIN.ISR|attempt|run dir' ; \
		status=$${PIPESTATUS[0]}; echo "reports: $(RUNS_DIR) (full log: $(RUNS_DIR)/chaos-local.log)"; exit $$status

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

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzReadJSONL -fuzztime 60s ./histories
	$(GO) test -run '^$$' -fuzz FuzzReadEDN -fuzztime 60s ./histories

# kafka fetches the pinned Apache Kafka jars (KAFKA_VERSION overrides) into
# the cache outside the repository; tests and `kafkachaos run` do it too.
kafka:
	$(GO) run ./internal/kafkadist/fetchkafka

clean:
	rm -rf bin
