# schedtui — see README.md. Every target works on a machine with only Go.
GO      ?= go
BIN     := bin/schedtui
PKGS    := ./...
# Nested modules with heavy test-only dependencies: the real upstream
# scheduler (conformance) and a real kube-apiserver on an embedded etcd
# (e2e). They share the Go build cache, so only the first run is slow.
NESTED  := conformance e2e

.PHONY: all build run demo-cluster tmux test test-main test-nested vet fmt-check bench bench-scale fuzz clean test-nested-e2e

all: build

# -v names each package as it is compiled: the first build compiles most
# of Kubernetes (minutes on two cores) and would otherwise print nothing.
build:
	@echo "Building $(BIN): the first build compiles most of Kubernetes and takes several minutes (packages are listed as they compile); later builds take seconds."
	$(GO) build -v -o $(BIN) ./cmd/schedtui

# Opens the interactive debugger on the embedded demo snapshot.
run: build
	./$(BIN) --demo

# A throwaway cluster to try live mode, shadow mode and forecasts on: a
# real kube-apiserver on an embedded etcd and the real kube-scheduler
# v1.37.1 (e2e/cmd/demo-cluster), filled from the embedded demo; it prints
# the kubeconfig to give schedtui and runs until Ctrl-C, which stops it and
# removes everything it wrote. ARGS passes flags: ARGS='--churn 3s'
# (create and delete pods), '--snapshot PATH', '--port N', '--dir DIR'
# (bin/demo-cluster -help lists them). The first build compiles most of
# Kubernetes (minutes); later ones take seconds.
demo-cluster:
	@echo "Building bin/demo-cluster: the first build compiles most of Kubernetes and takes several minutes; later builds take seconds."
	cd e2e && $(GO) build -ldflags '$(DEMO_CLUSTER_LDFLAGS)' -o ../bin/demo-cluster ./cmd/demo-cluster
	./bin/demo-cluster $(ARGS)

# The API server reports the version its binary was stamped with (an
# unstamped build says v0.0.0-master), and schedtui reads it to choose the
# kube-scheduler version it simulates. TestDemoCluster builds with the same.
DEMO_CLUSTER_LDFLAGS := -X k8s.io/component-base/version.gitVersion=v1.37.1 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37

test: tmux fmt-check vet test-main fuzz test-nested

# The TUI's end-to-end test drives the real binary in tmux.
tmux:
	@command -v tmux >/dev/null || (apt-get update && apt-get install -y tmux)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	@for m in $(NESTED); do (cd $$m && $(GO) vet ./...) || exit 1; done

# cmd/schedtui takes about three minutes on two idle cores; go test's
# default of ten minutes a package is too tight on a loaded machine.
test-main:
	$(GO) test -count=1 -timeout 30m $(PKGS)

# The end-to-end suite runs first and alone: it judges a real
# kube-scheduler's decisions from what the API server delivers, and the
# differential suite beside it would load both cores and stretch the real
# scheduler's informer lag past what shadow mode reconstructs. Then the
# differential suite, which keeps both cores busy by itself.
test-nested:
	@$(MAKE) --no-print-directory test-nested-e2e
	@$(MAKE) --no-print-directory test-nested-conformance

test-nested-e2e:
	@echo "== e2e"; cd e2e && $(GO) test -count=1 -timeout 40m ./...

# The differential suite runs each scenario on one core (upstream's and
# schedtui's cycles one after the other), so it runs as two processes side
# by side: the suites named in CONFORMANCE_B, and everything else. The
# first partition skips exactly what the second runs, so a new test always
# lands in one of them. The gate suites go together: they set the upstream
# process's global feature gates.
CONFORMANCE_B := ^(TestConformancePreemption|TestConformanceGates|TestConformanceVersionsAndGates|TestConformanceExtenders)$$
test-nested-conformance:
	@echo "== conformance (two partitions side by side)"
	@$(MAKE) --no-print-directory -j2 --output-sync=target conformance-part-a conformance-part-b

.PHONY: test-nested-conformance conformance-part-a conformance-part-b
conformance-part-a:
	@cd conformance && $(GO) test -count=1 -timeout 40m -skip '$(CONFORMANCE_B)' ./...
conformance-part-b:
	@cd conformance && $(GO) test -count=1 -timeout 40m -run '$(CONFORMANCE_B)' .

# Includes the TUI's key-press benchmark on a synthetic 15,000-node ×
# 10-plugin attempt (BenchmarkKeyPress in ./tui; the frame budget is
# 16ms/op). BenchmarkDRAAttempts (./scheduler/engine) prints the slowdown
# of attempts per CPU second with a one-GPU claim per pod against the same
# 5000 nodes and 2000 pods without (budget 2; 1.7 to 1.9 on two cores).
# Memory bounds: BenchmarkRunHeadless (./cmd/schedtui: `run` on
# 5000 nodes and 20,000 pending pods, peak-rss-MiB under 1024) and, on its
# own with a long timeout, BenchmarkLongReplay (./scheduler/engine: a day
# of churn on 5000 nodes under the debugger's retention, peak-rss-MiB
# under 2048, the last hour rewound; the whole day took under five minutes
# on two idle cores: -v prints the figures each simulated hour,
# SCHEDTUI_BENCH_MINUTES shortens it; measured (docs/performance.md): 1506 MiB), and
# BenchmarkLongShadowReplay (./scheduler/engine: the same churn in shadow
# mode, every pod decided about by the cluster's scheduler and judged,
# peak-rss-MiB under 2048; two simulated hours, the rewind window full
# after the first, SCHEDTUI_BENCH_MINUTES changes it). Then bench-scale, and, in e2e/, the
# initial sync of a live cluster of 50,000 nodes and 500,000 pods from a
# real kube-apiserver (BenchmarkLiveSync: sync-s, and schedtui's, the API
# server's and etcd's peak RSS and CPU, each a process of its own; no
# budget yet, the figures are in docs/performance.md "Live sync"; the fill
# writes copies of API-server-made objects straight into etcd, a few
# minutes in all; the API server runs without its watch cache; hold the
# shared memory lock, the three processes take about 10 GiB;
# SCHEDTUI_BENCH_NODES/SCHEDTUI_BENCH_PODS change the size: a million pods
# took about 14 GiB, schedtui 3 GiB of it). A live session's changes:
# BenchmarkLiveChurn (./snapshot/live, the fake API server) syncs scalegen's
# 500 nodes and 10,000 pods, changes every object once into an engine, and
# reports the heap the changes added a changed object (churn-B/object,
# budget 4096; 22,300 when each was copied for the engine, 2,570 measured).
# Throughput against upstream: BenchmarkVersusUpstream (conformance/) writes
# each scheduler_perf-shaped workload to a snapshot file and runs the real
# kube-scheduler v1.37.1 on it in process, schedtui's engine in process,
# and `schedtui run --snapshot FILE -o json` as a process of its own (built
# once from this module), and prints two tables: the in-process ratio of
# the schedulers' runs alone (SchedulingBasic at 5000 nodes: 3x; the
# others: 1.5x) and the end-to-end ratio, the process from start to exit
# against upstream's load, build and run (issue 27: 10x at 5000 nodes, 2x
# the others), each part of each side's time, each side's best of three
# rounds (SCHEDTUI_BENCH_ROUNDS). SCHEDTUI_BENCH_QUICK=1 takes the 500-node
# sizes; SCHEDTUI_BENCH_15K=1 adds SchedulingBasic at 15,000 nodes and
# 300,000 pods (2x in process, 8x end to end; several GiB, a few minutes
# from protobuf). The files are JSON unless SCHEDTUI_BENCH_FORMAT says
# otherwise: make bench runs every workload from JSON, then SchedulingBasic
# at 500, 5000 and 15,000 nodes again from protobuf (what `schedtui
# snapshot -o x.pb` writes, and what issue 27's targets were measured on;
# on a quiet machine, 28 November, 5000 nodes end to end: 12.6x to 15.0x
# from protobuf, 10.2x to 10.4x from JSON, whose load takes 0.07 s
# against protobuf's 0.04 s: the thinner margin).
#
# Decoding JSON: BenchmarkDecodeJSONObjects (./snapshot) decodes the pods
# and nodes of SchedulingBasic's 5000-node file one by one with the
# loader's fast path (JSON v2) and with the strict decoder alone, and
# reports ns/object and B/object (budget on the fast path: 6500 B/object;
# the strict decoder allocates about 8700).
#
# Loading protobuf: BenchmarkLoadProtobufPods (./snapshot) loads a
# snapshot of SchedulingBasic-shaped pods (1000 nodes, 20,000 pods) and one
# of scalegen's (500 nodes, 10,000 pods) in memory and reports ns/pod and
# B/pod allocated (budget 6000 and 14,000 B/pod; GOGC=off leaves the
# collector out of ns/pod).
#
# Issue 27's million pods: BenchmarkMillionPods (./cmd/schedtui) runs
# `schedtui run --snapshot FILE -o json --detail summary` as a process on
# internal/scenario's SchedulingBasic cluster at 50,000 nodes, 1,000,000
# bound pods and 1000 pending, from JSON (3.4 GiB) and from protobuf (876
# MiB), and reports the child's peak-rss-MiB (budget 4096), load-s,
# build-s, attempts-s and attempts÷load (budget 0.5); then it converts
# each file to the other format with `schedtui snapshot --snapshot FILE -o
# OUT` as a process (/snapshot-pb-to-json, /snapshot-json-to-pb) and
# reports that child's peak-rss-MiB (budget 4096: writing holds one
# object's encoding at a time, so the load is the peak), cpu-s and
# wall-s. Generating the snapshots takes a minute or two and more memory
# than the run (the whole cluster unshared; SCHEDTUI_BENCH_SNAPSHOTS=DIR
# keeps them for the next run; SCHEDTUI_BENCH_NODES/SCHEDTUI_BENCH_PODS
# shrink it).
bench:
	$(GO) test -run='^$$' -bench=. -skip='^($(SCALE_BENCH)|BenchmarkLongReplay|BenchmarkLongShadowReplay|BenchmarkMillionPods)$$' -benchmem $(PKGS)
	@$(MAKE) --no-print-directory bench-scale
	$(GO) test -run='^$$' -bench='^BenchmarkMillionPods$$' -benchtime=1x -timeout 2h ./cmd/schedtui
	$(GO) test -run='^$$' -bench='^BenchmarkLongReplay$$' -benchtime=1x -timeout 6h -v ./scheduler/engine
	$(GO) test -run='^$$' -bench='^BenchmarkLongShadowReplay$$' -benchtime=1x -timeout 6h -v ./scheduler/engine
	cd e2e && $(GO) test -run='^$$' -bench=LiveSync -benchtime=1x -timeout 4h .
	cd conformance && $(GO) test -run='^$$' -bench=VersusUpstream -benchtime=1x -timeout 3h .
	cd conformance && SCHEDTUI_BENCH_FORMAT=pb SCHEDTUI_BENCH_15K=1 $(GO) test -run='^$$' -bench='^BenchmarkVersusUpstream$$/^SchedulingBasic$$' -benchtime=1x -timeout 3h .

# The debugger at 15,000 nodes and 300,000 pods (internal/scalegen's
# cluster, 2.4 GiB of JSON; SCHEDTUI_BENCH_NODES/SCHEDTUI_BENCH_PODS shrink
# it), one package at a time (each needs up to 13 GiB): the loader against
# a plain typed decode of the same JSON (BenchmarkLoadScale in ./snapshot:
# typed-decode-s, load-s and their ratio, whose budget is 1.5), the time
# from opening the snapshot to the TUI's first frame (BenchmarkFirstScreen
# in ./tui: first-screen-s, budget 10, with its parts and cpu-s; /protobuf
# opens the cluster written as `schedtui snapshot -o x.pb` writes it, 668
# MiB, /json the 2.4 GiB of JSON), and a key press in each view on the
# last model after its first attempt (BenchmarkKeyPressScale: ms/key and
# max-ms/key, budget 16). Then the same first screen and key presses at
# 50,000 nodes and 1,000,000 SchedulingBasic-shaped bound pods plus 1000
# pending (SCHEDTUI_BENCH_SHAPE=basic: internal/scenario's Throughput),
# from protobuf only (876 MiB; generated first, in about a minute):
# first-screen-s budget 30, peak-rss-MiB budget 4096, ms/key 16.
SCALE_BENCH := BenchmarkLoadScale|BenchmarkFirstScreen|BenchmarkKeyPressScale
bench-scale:
	$(GO) test -run='^$$' -bench='^BenchmarkLoadScale$$' -benchtime=1x -timeout 2h ./snapshot
	$(GO) test -run='^$$' -bench='^(BenchmarkFirstScreen|BenchmarkKeyPressScale)$$' -benchtime=1x -timeout 2h ./tui
	SCHEDTUI_BENCH_SHAPE=basic SCHEDTUI_BENCH_NODES=50000 SCHEDTUI_BENCH_PODS=1000000 \
		$(GO) test -run='^$$' -bench='^(BenchmarkFirstScreen|BenchmarkKeyPressScale)$$/^(protobuf|[a-z-]+_.*)$$' -benchtime=1x -timeout 2h ./tui

# Fuzzes the snapshot loader (FuzzLoad), the JSON scanner it reads with
# against encoding/json (FuzzJSONScan, in internal/docread), the scheduler
# configuration loader (FuzzLoadConfig, in scheduler/apis/config), the
# recording reader (FuzzReadRecording), the loader's name checks against
# upstream's (FuzzNamesAgree, in snapshot/apiserver) and the JSON v2 fast
# path against the strict decoder (FuzzFastJSONDecode) and the JSON parts shared
# by their bytes against decoding without sharing (FuzzJSONSharing), FUZZTIME each. A failing input is written to
# testdata/fuzz/<target>/ in the target's package, where every `go test`
# replays it.
FUZZTIME ?= 20s
FUZZ    := ./snapshot:FuzzLoad ./internal/docread:FuzzJSONScan ./scheduler/apis/config:FuzzLoadConfig ./snapshot:FuzzReadRecording ./snapshot/apiserver:FuzzNamesAgree ./snapshot:FuzzFastJSONDecode ./snapshot:FuzzJSONSharing
# Go 1.26's fuzzing coordinator can fail a target at the -fuzztime deadline
# with a bare "context deadline exceeded" and no input found (a race fixed
# in Go 1.27): that alone is reported and passed; a failure that wrote an
# input, or any other, fails.
fuzz:
	@for t in $(FUZZ); do p=$${t%%:*}; f=$${t##*:}; echo "== $$f ($$p)"; \
		before=$$(ls $$p/testdata/fuzz/$$f 2>/dev/null | wc -l); \
		out=$$($(GO) test -run='^$$' -fuzz="^$$f\$$" -fuzztime=$(FUZZTIME) $$p 2>&1); rc=$$?; echo "$$out"; \
		after=$$(ls $$p/testdata/fuzz/$$f 2>/dev/null | wc -l); \
		if [ $$rc -ne 0 ]; then \
			if [ "$$after" = "$$before" ] && echo "$$out" | grep -qx '    context deadline exceeded' && ! echo "$$out" | grep -q 'Failing input'; then \
				echo "$$f: the fuzzing coordinator stopped at its deadline with no input found (Go 1.26's race, not a finding)"; \
			else exit 1; fi; \
		fi; done

clean:
	rm -rf bin
