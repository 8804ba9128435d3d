package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
)

// agreementFaults are the faults TestJudgeAgreesWithTheRun weighs in make
// test: one of each way a fault shows in traffic (a route missing, every
// request refused, a model dropped from a list, an answer's field or
// image wrong for its request, a stream's text misplaced, a negative row
// accepted, every shape of image input refused, a stop at the bound that
// is not at it). GWCONFORM_AGREEMENT=all weighs every fault of the table
// (a comma-separated list: those), and GWCONFORM_AGREEMENT_OUT=FILE writes
// the table as Markdown.
var agreementFaults = []string{
	"image-routes-missing", "chat-refuses-all", "model-missing", "lists-identical", "quality-other", "gen-size-default-1024",
	"text-delta-untyped", "accept-invalid", "image-any-key", "alt-image-refused", "max-tokens-halved", "finish-reason-other",
}

// TestJudgeAgreesWithTheRun: the catalog's verified and negative cases,
// run through serve --upstream --judge in front of a faulty reference
// gateway, get one verdict both ways: the run's exit code and the
// judge's are equal, and the features whose deciding results fail are
// the same.
func TestJudgeAgreesWithTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole catalog through a relay, per fault")
	}
	faults := agreementFaults
	switch which := os.Getenv("GWCONFORM_AGREEMENT"); which {
	case "":
	case "all":
		faults = nil
		for _, f := range refgateway.Faults() {
			faults = append(faults, f.Name)
		}
	default:
		faults = strings.Split(which, ",")
	}
	var table strings.Builder
	table.WriteString("| fault | run exit | judge exit | run's failing features | judge's failing features |\n|---|---|---|---|---|\n")
	for _, fault := range faults {
		t.Run(fault, func(t *testing.T) {
			run, judged, runCode, code := runThrough(t, "verified,negative", fault)
			want, got := failedFeatures(run, ""), failedFeatures(judged, results.SideGateway)
			fmt.Fprintf(&table, "| %s | %d | %d | %s | %s |\n", fault, runCode, code, orDash(want), orDash(got))
			assert.Equal(t, runCode, code, "exit codes")
			assert.Equal(t, want, got, "failing features")
		})
	}
	if out := os.Getenv("GWCONFORM_AGREEMENT_OUT"); out != "" {
		assert.NoError(t, os.WriteFile(out, []byte(table.String()), 0o644))
	}
}

func orDash(features []string) string {
	if len(features) == 0 {
		return "—"
	}
	return strings.Join(slices.Clip(features), ", ")
}
