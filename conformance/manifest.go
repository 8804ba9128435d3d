package conformance

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/results"
)

// ManifestFile is the manifest's name in an --out directory.
const ManifestFile = "manifest.json"

// ManifestVersion is the format of manifest.json (schema:
// manifest.schema.json beside this file). Bump it on any change that is not
// a pure addition; ReadManifest refuses versions it does not know.
const ManifestVersion = 1

// Manifest says what a run set out to do, written into --out before the
// first call: the catalog, the gateway, the selection and the settings that
// change which calls are made or how they are judged. A later command that
// continues or repeats the run (--rerun-failed, --resume) re-plans from it
// and refuses when what it would do differs (Differences). It holds no key
// and no credential: key kinds only, and the base URL without userinfo,
// query or fragment.
type Manifest struct {
	Version      int    `json:"version"`
	Command      string `json:"command"` // the gwconform command that wrote it: "run"
	SuiteVersion string `json:"suite_version"`
	CatalogHash  string `json:"catalog_hash"`        // catalog.Catalog.Hash
	CasesDir     string `json:"cases_dir,omitempty"` // --cases; empty: the embedded catalog
	// CasesExtra are the --cases-extra files loaded beside the catalog.
	CasesExtra []string  `json:"cases_extra,omitempty"`
	Created    time.Time `json:"created"`
	// BaseURL is the gateway; empty: the in-process reference gateway.
	BaseURL string `json:"base_url,omitempty"`
	// KindBaseURLs are the key kinds sent to a base of their own
	// (--text-base-url and the like), each scrubbed as BaseURL is.
	KindBaseURLs map[string]string `json:"kind_base_urls,omitempty"`
	// Offers are the feature globs the gateway declares it serves
	// (--offers); empty: every feature.
	Offers []string `json:"offers,omitempty"`
	// ModelMap is --model-map as given (SPEC=ID), and ModelNames what the
	// run sent for each spec id, given or read from the keys' lists.
	ModelMap   []string         `json:"model_map,omitempty"`
	ModelNames *plan.ModelNames `json:"model_names,omitempty"`
	// Headers are the header lines given (-H and each kind's), keyed by
	// kind ("" for every request), a variable left as ${NAME} and a
	// literal secret value redacted: what show --curl sends again.
	Headers map[string][]string `json:"headers,omitempty"`
	// Keys lists the key kinds configured (never the keys): which cases
	// can run at all depends on them.
	Keys      []string          `json:"keys"`
	Strict    bool              `json:"strict"`
	Selection ManifestSelection `json:"selection"`
	Options   ManifestOptions   `json:"options"`
	// Waivers names the --waivers file and the SHA-256 of its bytes.
	Waivers *ManifestFileRef `json:"waivers,omitempty"`
	// Record is the run --record directory the run writes its exchanges
	// to, and Replay the recording a run --replay answers from: a resumed
	// run goes on recording, or replaying, the same.
	Record string `json:"record,omitempty"`
	Replay string `json:"replay,omitempty"`
	// Planned is the plan's size: calls to make, calls skipped, and the
	// estimated cost units of the calls to make.
	Planned ManifestPlanned `json:"planned"`
}

// ManifestSelection is Selection as written: globs, shard "i/n", budgets.
type ManifestSelection struct {
	Features []string `json:"features"`
	Models   []string `json:"models"`
	Cases    []string `json:"cases"`
	Tiers    []string `json:"tiers"`
	Shard    string   `json:"shard,omitempty"`
	MaxCalls int      `json:"max_calls,omitempty"`
	MaxCost  float64  `json:"max_cost,omitempty"`
}

// ManifestOptions are the execution settings that change results: how
// many calls run at once per key (throttling), the per-request timeout and
// the retries.
type ManifestOptions struct {
	Concurrency int    `json:"concurrency"`
	Timeout     string `json:"timeout"` // Go duration
	Retries     int    `json:"retries"`
	MaxWait     string `json:"max_wait,omitempty"` // Go duration: a call's wait on the rate limit
}

// ManifestFileRef names a file the run read, by path and content hash.
type ManifestFileRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// ManifestPlanned is the size of a plan (Summarize).
type ManifestPlanned struct {
	Calls     int     `json:"calls"`
	Skipped   int     `json:"skipped"`
	CostUnits float64 `json:"cost_units"`
}

// NewManifest describes a run of the planned calls. The caller fills in
// what the engine does not know: Command, SuiteVersion, CasesDir, Waivers.
func NewManifest(cat *catalog.Catalog, t plan.Target, sel plan.Selection, o execute.Options, strict bool, calls []plan.Call) Manifest {
	o = o.WithDefaults()
	sum := plan.Summarize(calls)
	m := Manifest{
		Version:     ManifestVersion,
		CatalogHash: cat.Hash(),
		Created:     time.Now().UTC(),
		BaseURL:     redact.BaseURL(t.BaseURL),
		Keys:        []string{},
		Strict:      strict,
		Selection: ManifestSelection{
			Features: orEmpty(sel.Features), Models: orEmpty(sel.Models), Cases: orEmpty(sel.Cases), Tiers: orEmpty(sel.Tiers),
			Shard: sel.Shard.String(), MaxCalls: sel.MaxCalls, MaxCost: sel.MaxCost,
		},
		Options: ManifestOptions{Concurrency: o.Concurrency, Timeout: o.Timeout.String(), Retries: o.MaxRetries, MaxWait: o.MaxWait.String()},
		Planned: ManifestPlanned{Calls: sum.Total, Skipped: sum.Skipped, CostUnits: sum.TotalUnits},
	}
	for _, k := range catalog.KeyKinds {
		if t.Keys[k] != "" {
			m.Keys = append(m.Keys, string(k))
		}
	}
	m.KindBaseURLs = redact.BaseURLs(t.KindBaseNames())
	m.Offers = t.Offers
	m.Headers = t.RecordedHeaderLines()
	for _, spec := range slices.Sorted(maps.Keys(t.Names.Given)) {
		m.ModelMap = append(m.ModelMap, spec+"="+t.Names.Given[spec])
	}
	if len(t.Names.Given) > 0 || len(t.Names.Entries) > 0 {
		m.ModelNames = &t.Names
	}
	return m
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SelectionOf is the Selection the manifest records.
func (m Manifest) SelectionOf() (plan.Selection, error) {
	shard, err := plan.ParseShard(m.Selection.Shard)
	if err != nil {
		return plan.Selection{}, err
	}
	return plan.Selection{
		Features: m.Selection.Features, Models: m.Selection.Models, Cases: m.Selection.Cases, Tiers: m.Selection.Tiers,
		Shard: shard, MaxCalls: m.Selection.MaxCalls, MaxCost: m.Selection.MaxCost,
	}, nil
}

// Write writes dir/manifest.json (dir must exist), through a temporary
// file, so a reader never sees half a manifest.
func (m Manifest) Write(dir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return results.WriteBytes(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// ReadManifest reads dir/manifest.json. It refuses unknown fields and other
// versions: a manifest misread would re-run something other than the run.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, err
	}
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", path, err)
	}
	if probe.Version != ManifestVersion {
		return Manifest{}, fmt.Errorf("%s: manifest version %d, this build reads version %d", path, probe.Version, ManifestVersion)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Differences lists, one line each, what makes other a different run from
// m: the catalog, the suite, the key kinds, the waivers file's content, and
// every setting the manifest records (SettingsTable's Recorded, named by
// its flag) — everything but the time it was written and the plan's size,
// which follow from the rest. Empty means the same run.
func (m Manifest) Differences(other Manifest) []string {
	var out []string
	diff := func(name string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			out = append(out, fmt.Sprintf("%s: %s, now %s", name, showSetting(a), showSetting(b)))
		}
	}
	diff("manifest version", m.Version, other.Version)
	diff("command", m.Command, other.Command)
	diff("suite version", m.SuiteVersion, other.SuiteVersion)
	diff("catalog", m.CatalogHash, other.CatalogHash)
	diff("keys", strings.Join(m.Keys, ","), strings.Join(other.Keys, ","))
	for _, d := range SettingsTable {
		if d.Recorded == nil {
			continue
		}
		if d.Name == "waivers" { // by content too: the same path may hold other entries
			diff("--waivers", m.Waivers, other.Waivers)
			continue
		}
		a, b := d.Recorded(m), d.Recorded(other)
		if d.Kind == KindList && a != b { // an empty selection is all of it
			a, b = cmp.Or(a, "(all)"), cmp.Or(b, "(all)")
		}
		diff("--"+d.Name, a, b)
	}
	return out
}

// showSetting renders a manifest value in a difference line.
func showSetting(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "(none)"
		}
		return x
	case []string:
		if len(x) == 0 {
			return "(all)"
		}
		return strings.Join(x, ",")
	case *ManifestFileRef:
		if x == nil {
			return "(none)"
		}
		return x.Path + " sha256:" + x.SHA256[:min(12, len(x.SHA256))]
	}
	return fmt.Sprint(v)
}
