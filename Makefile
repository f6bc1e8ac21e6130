# schedtui — see README.md. Every target works on a machine with only Go.
GO      ?= go
BIN     := bin/schedtui
PKGS    := ./...
# Nested modules with heavy test-only dependencies (the real upstream
# scheduler). Their Go build cache is shared, so only the first run is slow.
NESTED  := conformance

.PHONY: all build run test test-main test-nested vet fmt-check bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/schedtui

# Until the TUI lands, `make run` schedules the embedded demo headless and
# explains its first stuck pod.
run: build
	./$(BIN) run
	@echo
	./$(BIN) explain default/critical-api

test: fmt-check vet test-main test-nested

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	@for m in $(NESTED); do (cd $$m && $(GO) vet ./...) || exit 1; done

test-main:
	$(GO) test -count=1 $(PKGS)

test-nested:
	@for m in $(NESTED); do echo "== $$m"; (cd $$m && $(GO) test -count=1 -timeout 40m ./...) || exit 1; done

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

clean:
	rm -rf bin
