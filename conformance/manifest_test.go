package conformance_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
)

func sampleManifest(t *testing.T) conformance.Manifest {
	t.Helper()
	suite := loadSuite(t)
	target := plan.Target{
		BaseURL: "https://user:secret@gateway.test/base?token=abc#frag",
		Keys:    map[catalog.KeyKind]string{catalog.KeyText: "sk-text-000000", catalog.KeyImage: "sk-image-000000"},
	}
	sel := plan.Selection{Features: []string{"chat.*"}, Tiers: []string{"verified"}, Shard: plan.Shard{Index: 2, Count: 3}, MaxCalls: 40, MaxCost: 100}
	calls, err := plan.Make(suite.Catalog, target, sel)
	require.NoError(t, err)
	m := conformance.NewManifest(suite.Catalog, target, sel, execute.Options{Concurrency: 2, Timeout: 90 * time.Second}, true, calls)
	m.Command, m.SuiteVersion = "run", "v1.2.3"
	m.Waivers = &conformance.ManifestFileRef{Path: "waivers.yaml", SHA256: strings.Repeat("ab", 32)}
	m.Record = "recordings/night"
	return m
}

func TestManifestRoundTrip(t *testing.T) {
	m := sampleManifest(t)
	assert.Equal(t, "https://gateway.test/base", m.BaseURL, "no userinfo, query or fragment")
	assert.Equal(t, []string{"text", "image"}, m.Keys, "key kinds, never keys")
	assert.Equal(t, "2/3", m.Selection.Shard)
	assert.Equal(t, "1m30s", m.Options.Timeout)
	assert.Equal(t, 2, m.Options.Retries, "the engine's default, written out")
	assert.Positive(t, m.Planned.Calls)

	dir := t.TempDir()
	require.NoError(t, m.Write(dir))
	b, err := os.ReadFile(filepath.Join(dir, conformance.ManifestFile))
	require.NoError(t, err)
	for _, secret := range []string{"secret", "token=abc", "sk-text", "sk-image"} {
		assert.NotContains(t, string(b), secret)
	}
	got, err := conformance.ReadManifest(dir)
	require.NoError(t, err)
	assert.Empty(t, m.Differences(got))
	assert.True(t, m.Created.Equal(got.Created))

	sel, err := got.SelectionOf()
	require.NoError(t, err)
	assert.Equal(t, plan.Selection{Features: []string{"chat.*"}, Models: []string{}, Cases: []string{}, Tiers: []string{"verified"},
		Shard: plan.Shard{Index: 2, Count: 3}, MaxCalls: 40, MaxCost: 100}, sel)
}

func TestManifestBaseURLCarriesNoCredential(t *testing.T) {
	suite := loadSuite(t)
	for in, want := range map[string]string{
		"":                              "",
		"https://gw.test":               "https://gw.test",
		"https://u:p@gw.test/v?key=k#f": "https://gw.test/v",
		"https://u:p@gw.test/%zz?key=k": "gw.test/%zz", // unparseable: a bad escape
	} {
		m := conformance.NewManifest(suite.Catalog, plan.Target{BaseURL: in}, plan.Selection{}, execute.Options{}, false, nil)
		assert.Equal(t, want, m.BaseURL, in)
	}
}

func TestManifestValidatesAgainstSchema(t *testing.T) {
	raw, err := os.ReadFile("manifest.schema.json")
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://github.com/gwconform/gwconform/conformance/manifest.schema.json"
	require.NoError(t, c.AddResource(url, doc))
	schema, err := c.Compile(url)
	require.NoError(t, err)

	withoutWaivers := sampleManifest(t)
	withoutWaivers.Waivers = nil
	withoutWaivers.BaseURL = ""
	withoutWaivers.Record, withoutWaivers.Replay = "", "recordings/night" // a replay's manifest
	for name, m := range map[string]conformance.Manifest{"full": sampleManifest(t), "a replay, no waivers": withoutWaivers} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, m.Write(dir))
			f, err := os.Open(filepath.Join(dir, conformance.ManifestFile))
			require.NoError(t, err)
			defer f.Close()
			v, err := jsonschema.UnmarshalJSON(f)
			require.NoError(t, err)
			assert.NoError(t, schema.Validate(v))
		})
	}
}

func TestManifestDifferences(t *testing.T) {
	base := sampleManifest(t)
	tests := []struct {
		name   string
		change func(*conformance.Manifest)
		want   []string
	}{
		{"the same run", func(m *conformance.Manifest) { m.Created = m.Created.Add(time.Hour); m.Planned.Calls++ }, nil},
		{"another catalog", func(m *conformance.Manifest) { m.CatalogHash = "beef" }, []string{"catalog: " + base.CatalogHash + ", now beef"}},
		{"another gateway", func(m *conformance.Manifest) { m.BaseURL = "" }, []string{"--base-url: https://gateway.test/base, now (none)"}},
		{"a filter dropped", func(m *conformance.Manifest) { m.Selection.Features = []string{} }, []string{"--feature: chat.*, now (all)"}},
		{"a key missing", func(m *conformance.Manifest) { m.Keys = []string{"text"} }, []string{"keys: text,image, now text"}},
		{"no key at all", func(m *conformance.Manifest) { m.Keys = []string{} }, []string{"keys: text,image, now (none)"}},
		{"another budget and timeout", func(m *conformance.Manifest) { m.Selection.MaxCost = 50; m.Options.Timeout = "10m0s" },
			[]string{"--max-cost: 100, now 50", "--timeout: 1m30s, now 10m0s"}},
		{"recording elsewhere", func(m *conformance.Manifest) { m.Record = "recordings/other" },
			[]string{"--record: recordings/night, now recordings/other"}},
		{"a replay is not the live run", func(m *conformance.Manifest) { m.Replay = "recordings/night" },
			[]string{"--replay: (none), now recordings/night"}},
		{"the waivers changed", func(m *conformance.Manifest) {
			m.Waivers = &conformance.ManifestFileRef{Path: "waivers.yaml", SHA256: strings.Repeat("cd", 32)}
		},
			[]string{"--waivers: waivers.yaml sha256:abababababab, now waivers.yaml sha256:cdcdcdcdcdcd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := sampleManifest(t)
			other.CatalogHash, other.Created = base.CatalogHash, base.Created
			tt.change(&other)
			assert.Equal(t, tt.want, base.Differences(other))
		})
	}
}

func TestReadManifestRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"another version":  `{"version": 2}`,
		"an unknown field": `{"version": 1, "command": "run", "colour": "red"}`,
		"not JSON":         `{`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, conformance.ManifestFile), []byte(body), 0o644))
			_, err := conformance.ReadManifest(dir)
			assert.Error(t, err)
		})
	}
	_, err := conformance.ReadManifest(t.TempDir())
	assert.ErrorIs(t, err, os.ErrNotExist)
}
