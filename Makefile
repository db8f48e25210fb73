SHELL := /bin/bash
# kafkachaos — see README.md. `make chaos` runs the chaos suite on the embedded
# cluster and writes reports under runs/; `make test` runs every test.

GO        ?= go
CLUSTER   ?= embedded
TIMEOUT   ?= 20m
RUNS_DIR  ?= $(CURDIR)/runs

.PHONY: build test chaos bench fuzz clean vet kafka

build:
	$(GO) build -o bin/kafkachaos ./cmd/kafkachaos

vet:
	$(GO) vet ./...

test:
	$(GO) test -timeout $(TIMEOUT) ./...

chaos: build
	mkdir -p $(RUNS_DIR)
	KAFKACHAOS_CLUSTER=$(CLUSTER) KAFKACHAOS_RUNS=$(RUNS_DIR) KAFKACHAOS_KEEP=1 \
		$(GO) test -timeout $(TIMEOUT) -count=1 -run Chaos -v . 2>&1 | tee $(RUNS_DIR)/chaos.log | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|run dir|report' ; \
		status=$${PIPESTATUS[0]}; echo "reports: $(RUNS_DIR) (full log: $(RUNS_DIR)/chaos.log; open a run's index.html)"; exit $$status

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
