# gwconform — conformance and contract tests for the Model-Gateway API.
# Everything needs only Go and make; `make test` installs nothing else itself
# (the browser test needs Debian's chromium, the JS client drive Node and npm,
# which .ci/run installs; without Node the JS drive is skipped and says so).

GO      ?= go
OUT     ?= out
PKGS    ?= ./...
FUZZTIME ?= 30s
# The suite's version and commit, recorded in report.json.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  = -X main.version=$(VERSION)
export GWCONFORM_COMMIT = $(COMMIT)

.PHONY: run test bench lint fuzz report build serve vet fmt

## run: the whole catalog against the in-process reference gateway, writing $(OUT)/
run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/gwconform run --out $(OUT)

# The end-to-end tests that run the whole catalog (hundreds of real images
# encoded and decoded), the legal variations that run many cases each, and
# the fault tables (every reference-gateway fault through its scenarios and
# through the catalog's cases), the client drives (each library against
# the faults the client table names; the JS one needs node and npm)
# take ten times longer under the race detector for nothing concurrent, so
# the race pass runs with -short, which skips only them; the concurrent
# runner, the gateway and every other test stay under -race. A second pass
# runs them without it.
E2E = TestConformance|TestFaults|TestEveryFaultIsCaught|TestRunAgainstGatewayNames|TestRunAgainstAGatewayRoutedByPrefix|TestRunAgainstAGatewayWithoutImages|TestMergeJoinsRunsOfOneGateway|TestRunWithinARateLimit|TestRunOutputsShardsAndSecrets|TestProbeSnippetAddsModelsToTheNextRun|TestGeneratorCommand|TestRecordReplayWholeCatalog|TestStandInPassesTheSDKTests|TestNoFalseAlarmsOnLegalVariation|TestJudgingRelayOnTheCatalog|TestJudgingRelayNamesWhatTheCatalogFails|TestJudgeAgreesWithTheRun|TestDriveGoLibraries|TestDriveJSLibraries

## test: every test; all but the whole-catalog runs under the race detector
test:
	$(GO) tool gotestsum --format pkgname-and-test-fails -- -race -short -timeout 15m $(PKGS)
	$(GO) tool gotestsum --format pkgname-and-test-fails -- -timeout 15m -run '^($(E2E))$$' ./conformance/ ./conformance/refgateway/ ./cmd/gwconform/ ./fixtures/

## bench: Go benchmarks (image encoding, SSE reader, pairwise), a whole-run benchmark, and whole-catalog runs with live latency, with and without a rate limit (minutes each)
bench:
	$(GO) test -run '^$$' -bench . -skip BenchmarkPacedRun -benchmem -benchtime 3x ./conformance/refgateway/imagery/ ./conformance/sse/ ./conformance/pairwise/ ./conformance/imagecheck/ ./conformance/
	$(GO) test -run '^$$' -bench BenchmarkPacedRun -benchtime 1x -timeout 60m ./conformance/
	$(GO) test -run '^$$' -bench BenchmarkJudg -benchtime 10x ./cmd/gwconform/
	for b in BenchmarkDirectImageStreamsRSS BenchmarkRelayImageStreamsRSS BenchmarkRecordingRelayImageStreamsRSS BenchmarkRelayLargeImageStreamsRSS BenchmarkRelayChatRSS BenchmarkRecordingRelayChatRSS; do \
		$(GO) test -run '^$$' -bench "^$$b$$" -benchtime 1x -timeout 30m ./cmd/gwconform/ || exit 1; done

## lint: gofmt, go vet, staticcheck (unused code among its checks), actionlint (the workflows, the nightly a company copies, and action.yml), and the case files and schemas
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) tool actionlint .github/workflows/*.yml .github/examples/*.yml
	$(GO) run ./cmd/gwconform lint

## fuzz: each fuzz target for $(FUZZTIME) (go test -fuzz takes one target at a time)
FUZZ_TARGETS = ./conformance/sse/:FuzzReader ./conformance/streams/:FuzzGrammars ./conformance/catalog/:FuzzLoad ./conformance/catalog/:FuzzReadSettings \
	./conformance/imagecheck/:FuzzInspect ./conformance/imagecheck/:FuzzDecodeBase64 ./conformance/imagecheck/:FuzzParseSize \
	./conformance/refgateway/:FuzzChatJSON ./conformance/refgateway/:FuzzMessagesJSON \
	./conformance/refgateway/:FuzzImagesEditJSON ./conformance/refgateway/:FuzzImagesEditMultipart \
	./conformance/observe/:FuzzJudgeRequest
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

## report: re-render every report from $(OUT)/results.jsonl
report:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/gwconform merge $(OUT) $(OUT)/results.jsonl

## serve: the reference gateway on 127.0.0.1:8080
serve:
	$(GO) run ./cmd/gwconform serve

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/gwconform ./cmd/gwconform
