package conformancetest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/gwconform/gwconform"

// side names the set a package of the module belongs to (DESIGN.md, Layout):
// the engine judges, the gateway is judged, the report renders results, and
// the wiring (the CLI and this package) is the only place that meets both.
// Data packages embed files and nothing else: the engine and the gateway
// may both read them (the vendor table), as sharing data is not sharing a
// reader.
func side(pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	switch {
	case slices.Contains(dataPackages, rel):
		return "data"
	case rel == "conformance/refgateway" || strings.HasPrefix(rel, "conformance/refgateway/"):
		return "gateway"
	case rel == "conformance/conformancetest" || rel == "cmd" || strings.HasPrefix(rel, "cmd/"):
		return "wiring"
	case rel == "report" || strings.HasPrefix(rel, "report/"):
		return "report"
	}
	return "engine"
}

// dataPackages hold embedded files only.
var dataPackages = []string{"cases", "cases/clients", "cases/requirements", "cases/vendors", "fixtures"}

// forbidden says which sides a side must not depend on.
var forbidden = map[string][]string{
	"data":    {"engine", "gateway", "report", "wiring"}, // files, no code of either side
	"gateway": {"engine", "report", "wiring"},            // the judged shares no code with the judge
	"engine":  {"gateway", "report", "wiring"},
	"report":  {"gateway", "wiring"},
}

// stage names the part of the engine a package is (conformance/doc.go):
// the vocabulary, the results file format, a stage of the data flow, the
// root that wires a run, or a support package the stages build on.
func stage(pkg string) string {
	switch rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/"); rel {
	case "conformance/vocab", "conformance/results", "conformance/plan", "conformance/execute", "conformance/check", "conformance/observe":
		return strings.TrimPrefix(rel, "conformance/")
	case "conformance":
		return "root"
	}
	return "support"
}

// stageForbidden says which parts of the engine a part must not depend on:
// data flows one way (load → plan → execute → check → results), execute
// owns the transport, pacing and recording, and check only reads what
// execute received.
var stageForbidden = map[string][]string{
	"vocab":   {"results", "plan", "execute", "check", "root", "support"},
	"results": {"plan", "execute", "check", "root"},
	"support": {"plan", "execute", "check", "root"},
	"plan":    {"execute", "check", "root"},
	"check":   {"plan", "execute", "root"},
	"execute": {"root"},
	// observe judges recorded traffic through check: it reads recordings
	// (record) as execute's tap writes them, and never sends.
	"observe": {"plan", "execute", "root"},
}

// transportOnly are the support packages only execute (and observe, which
// reads what a relay's tap recorded) may use: pacing and recording taps
// belong to the stage that sends.
var transportOnly = []string{module + "/conformance/pace", module + "/conformance/record"}

// importViolations lists every dependency that breaks a rule, for a graph
// of package → its transitive non-test dependencies.
func importViolations(graph map[string][]string) []string {
	var out []string
	for pkg, deps := range graph {
		from := side(pkg)
		for _, dep := range deps {
			if dep != module && !strings.HasPrefix(dep, module+"/") {
				continue
			}
			for _, bad := range forbidden[from] {
				if side(dep) == bad {
					out = append(out, from+" package "+pkg+" depends on "+bad+" package "+dep)
				}
			}
			if from == "engine" && side(dep) == "engine" {
				out = append(out, stageViolations(pkg, dep)...)
			}
		}
	}
	return out
}

// stageViolations is what breaks a rule between two engine packages.
func stageViolations(pkg, dep string) []string {
	var out []string
	from, to := stage(pkg), stage(dep)
	if slices.Contains(stageForbidden[from], to) {
		out = append(out, from+" package "+pkg+" depends on "+to+" package "+dep)
	}
	if (from == "plan" || from == "check" || from == "results" || from == "vocab") && slices.Contains(transportOnly, dep) {
		out = append(out, from+" package "+pkg+" depends on "+dep+", which only execute may use")
	}
	return out
}

// TestImportRules checks the module's real graph, built by go list -deps
// (which leaves test files out: tests are wiring).
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		graph[f[0]] = f[1:]
	}
	require.Contains(t, graph, module+"/conformance/refgateway", "go list saw the gateway")
	require.Contains(t, graph, module+"/conformance", "go list saw the engine")
	assert.Empty(t, importViolations(graph))
}

// TestImportViolations: each rule catches the import it forbids.
func TestImportViolations(t *testing.T) {
	const gw, engine, rep, c = module + "/conformance/refgateway", module + "/conformance/imagecheck", module + "/report", module + "/conformance"
	tests := []struct {
		name  string
		graph map[string][]string
		want  int
	}{
		{"gateway imports the engine", map[string][]string{gw + "/imagery": {engine, "image/png"}}, 1},
		{"engine imports the gateway", map[string][]string{module + "/conformance": {gw}}, 1},
		{"engine imports the report", map[string][]string{module + "/conformance": {rep}}, 1},
		{"report imports the wiring", map[string][]string{rep: {module + "/conformance/conformancetest"}}, 1},
		{"wiring imports both", map[string][]string{module + "/cmd/gwconform": {gw, engine, rep}}, 0},
		{"report reads results", map[string][]string{rep: {module + "/conformance/results"}}, 0},
		{"gateway within itself", map[string][]string{gw: {gw + "/imagery", "net/http"}}, 0},
		{"gateway and engine read one data package", map[string][]string{gw: {module + "/cases/vendors"}, c + "/modelid": {module + "/cases/vendors"}}, 0},
		{"a data package imports the engine", map[string][]string{module + "/cases/vendors": {c + "/modelid"}}, 1},
		{"check imports execute", map[string][]string{c + "/check": {c + "/execute"}}, 1},
		{"check paces", map[string][]string{c + "/check": {c + "/pace", c + "/streams"}}, 1},
		{"plan imports check", map[string][]string{c + "/plan": {c + "/check", c + "/catalog"}}, 1},
		{"a support package imports a stage", map[string][]string{c + "/catalog": {c + "/plan"}}, 1},
		{"vocab imports results", map[string][]string{c + "/vocab": {c + "/results"}}, 1},
		{"a stage imports the root", map[string][]string{c + "/execute": {c}}, 1},
		{"the data flow", map[string][]string{c + "/execute": {c + "/plan", c + "/check", c + "/pace", c + "/record"},
			c + "/check": {c + "/streams", c + "/results", c + "/vocab"}, c: {c + "/execute"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Len(t, importViolations(tt.graph), tt.want)
		})
	}
}
