package v1_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

func TestJSONRoundTrip(t *testing.T) {
	r := report.Build(SampleMeta(), Sample())
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	got, err := reportv1.ReadJSON(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, r.Models, got.Models)
	assert.Equal(t, r.Features, got.Features)
	assert.Equal(t, r.Cells, got.Cells)
	assert.Equal(t, r.Totals, got.Totals)
	assert.Equal(t, r.Verdict, got.Verdict)
	assert.NotEmpty(t, got.Causes)
	assert.Equal(t, r.Causes, got.Causes)
	require.Len(t, got.Results, len(r.Results))
	assert.Equal(t, r.Results[0].Case, got.Results[0].Case)
	assert.True(t, r.Metadata.Started.Equal(got.Metadata.Started))

	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, "gwconform.dev/v1alpha1", doc["apiVersion"])
	assert.Equal(t, "ConformanceReport", doc["kind"])
}

// The model map comes back whole, and each model's label says the
// gateway's id only where it differs from the spec's.
func TestJSONRoundTripKeepsTheModelMap(t *testing.T) {
	m := SampleMeta()
	m.ModelMap = NamedModels()
	var b bytes.Buffer
	require.NoError(t, report.Build(m, Sample()).WriteJSON(&b))
	got, err := reportv1.ReadJSON(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, NamedModels(), got.Metadata.ModelMap)
	assert.Contains(t, b.String(), `"modelMap": [`)
	assert.Contains(t, b.String(), `"source": "resolved"`)

	tests := []struct{ spec, label string }{
		{"gen-5.5", "gen-5.5 → gpt-5.5"},
		{"alt-flash", "alt-flash → company-chat"},
		{"gen-image-2", "gen-image-2"},   // listed as is
		{"msg-sonnet-5", "msg-sonnet-5"}, // the list could not be read: sent as is
		{"gen-6", "gen-6"},               // unlisted: nothing sent
		{"gen-text-1", "gen-text-1"},     // not in the map
	}
	for _, tt := range tests {
		assert.Equal(t, tt.label, got.Metadata.ModelLabel(tt.spec), tt.spec)
	}
}

func TestReadJSONRejects(t *testing.T) {
	tests := []struct{ name, in, err string }{
		{"not json", `{`, "report.json"},
		{"wrong kind", `{"apiVersion":"gwconform.dev/v1alpha1","kind":"Other"}`, "kind"},
		{"unknown version", `{"apiVersion":"gwconform.dev/v9","kind":"ConformanceReport"}`, "apiVersion"},
		{"cells do not fit", `{"apiVersion":"gwconform.dev/v1alpha1","kind":"ConformanceReport","models":["a"],"features":["f"],"cells":[]}`, "cells"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reportv1.ReadJSON(strings.NewReader(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}
