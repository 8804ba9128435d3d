package runs

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

// night builds the report of one night of a model's chat.basic case with
// the given status (and a passing models.list case), started day days after T0.
func night(day int, st vocab.Status, tier vocab.Tier) NamedReport {
	m := SampleMeta()
	m.Started = T0.Add(time.Duration(day) * 24 * time.Hour)
	rs := []results.Result{Res("models-list", "models.list", "gen-text-1", TV, P), Res("chat-basic", "chat.basic", "gen-text-1", tier, st)}
	return NamedReport{Name: "night" + string(rune('0'+day)) + "/report.json", Report: report.Build(m, rs)}
}

func TestHistoryCells(t *testing.T) {
	tests := []struct {
		name     string
		statuses []vocab.Status
		tier     vocab.Tier
		firstRed int
		redSince int
		flapping bool
	}{
		{"always green", []vocab.Status{P, P, P}, TV, -1, -1, false},
		{"red since the third night", []vocab.Status{P, P, F, F}, TV, 2, 2, false},
		{"a regression fixed is not flapping", []vocab.Status{P, F, F, P}, TV, 1, -1, false},
		{"pass and fail alternating", []vocab.Status{P, F, P, F, P}, TV, 1, -1, true},
		{"alternating, red now", []vocab.Status{F, P, E}, TV, 0, 2, true},
		{"a night without a verdict does not break a streak", []vocab.Status{P, F, S, F}, TV, 1, 3, false},
		{"throttled between reds is no pass", []vocab.Status{F, T, F}, TV, 0, 2, false},
		{"a strict failure is not red", []vocab.Status{P, F, P, F}, TS, -1, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ns []NamedReport
			for i, st := range tt.statuses {
				ns = append(ns, night(i+1, st, tt.tier))
			}
			h := BuildHistory(ns)
			c, ok := h.Cell("gen-text-1", "chat.basic")
			require.True(t, ok)
			assert.Equal(t, tt.firstRed, c.FirstRed, "first red")
			assert.Equal(t, tt.redSince, c.RedSince, "red since")
			assert.Equal(t, tt.flapping, c.Flapping, "flapping")
			require.Len(t, c.Statuses, len(tt.statuses))
			lst, _ := h.Cell("gen-text-1", "models.list")
			assert.Equal(t, -1, lst.FirstRed)
		})
	}
}

func TestHistoryNights(t *testing.T) {
	// Given out of order, one night without the model, two nights on one date.
	third := night(3, F, TV)
	first := night(1, P, TV)
	sameDay := night(3, P, TV)
	sameDay.Report.Metadata.Started = sameDay.Report.Metadata.Started.Add(2 * time.Hour)
	other := NamedReport{Name: "other.json", Report: report.Build(func() reportv1.Meta { m := SampleMeta(); m.Started = T0.Add(48 * time.Hour); return m }(),
		[]results.Result{Res("edit-json", "images.edit.json", "gen-image-2", TV, P)})}
	h := BuildHistory([]NamedReport{third, first, sameDay, other})

	var labels, verdicts []string
	for _, n := range h.Nights {
		labels = append(labels, n.Label)
		verdicts = append(verdicts, n.Verdict)
	}
	assert.Equal(t, []string{"2026-03-15", "2026-03-16", "2026-03-17 02:00:00", "2026-03-17 04:00:00"}, labels, "oldest first; the time where a date repeats")
	assert.Equal(t, []string{"pass", "pass", "fail", "pass"}, verdicts)
	assert.Equal(t, "conformance failed: 1 of 2 verified/negative results failed or errored", h.Nights[2].Headline)
	assert.Equal(t, 1, h.Nights[2].Total.Fail)
	assert.Equal(t, []string{"gen-image-2", "gen-text-1"}, h.Models)
	c, _ := h.Cell("gen-text-1", "chat.basic")
	assert.Equal(t, []reportv1.CellStatus{reportv1.CellPass, reportv1.CellNone, reportv1.CellFail, reportv1.CellPass}, c.Statuses, "a night without the model has no cell")
	assert.Len(t, h.Cells, len(h.Models)*len(h.Features))
	assert.Empty(t, h.Flapping())

	twin := night(1, P, TV)
	unknown := night(1, P, TV)
	unknown.Report.Metadata.Started = time.Time{}
	h = BuildHistory([]NamedReport{unknown, night(1, P, TV), twin})
	labels = nil
	for _, n := range h.Nights {
		labels = append(labels, n.Label)
	}
	assert.Equal(t, []string{"night 1", "2026-03-15 02:00:00 (night 2)", "2026-03-15 02:00:00 (night 3)"}, labels, "every night told apart")

	empty := BuildHistory(nil)
	var b bytes.Buffer
	require.NoError(t, empty.WriteHTML(&b))
	assert.Contains(t, b.String(), "<title>gwconform history</title>")
}

func TestHistoryHTMLSelfContained(t *testing.T) {
	n := night(1, F, TV)
	n.Report.Headline = "</script><script>alert(1)</script>"
	h := BuildHistory([]NamedReport{night(0, P, TV), n})
	var b bytes.Buffer
	require.NoError(t, h.WriteHTML(&b))
	page := b.String()
	assert.Equal(t, 2, strings.Count(page, "<script"), "the data block and the page script, nothing injected")
	assert.NotContains(t, page, "<script>alert(1)")
	assert.NotContains(t, page, "http://", "no network reference")
	assert.NotContains(t, page, "https://")
	assert.Contains(t, page, "Content-Security-Policy")
	assert.Contains(t, page, "<title>gwconform history: 2026-03-14 to 2026-03-15</title>")
}

// A row is labelled as the newest night that ran its model names it: a
// gateway renaming a model keeps the row (keyed by the spec id), and its
// label says tonight's id.
func TestHistoryLabelsModelsAsTheNewestNight(t *testing.T) {
	named := func(day int, gateway string) NamedReport {
		n := night(day, P, TV)
		n.Report.Metadata.ModelMap = []reportv1.ModelName{{Spec: "gen-text-1", Gateway: gateway, Key: "text", Source: reportv1.NameResolved}}
		return n
	}
	tests := []struct {
		name   string
		nights []NamedReport
		want   map[string]string
	}{
		{"no map", []NamedReport{night(1, P, TV), night(2, P, TV)}, map[string]string{}},
		{"renamed", []NamedReport{night(1, P, TV), named(2, "gpt-text-1")}, map[string]string{"gen-text-1": "gen-text-1 → gpt-text-1"}},
		{"renamed again: the newest night's id", []NamedReport{named(2, "company-chat"), named(1, "gpt-text-1")}, map[string]string{"gen-text-1": "gen-text-1 → company-chat"}},
		{"sent as is again", []NamedReport{named(1, "gpt-text-1"), night(2, P, TV)}, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := BuildHistory(tt.nights)
			assert.Equal(t, tt.want, h.ModelLabels)
			assert.Equal(t, []string{"gen-text-1"}, h.Models, "one row, keyed by the spec id")
		})
	}
}

// Nights of different gateways are said (issue 34): a cell's history then
// compares gateways. Nights of one gateway say nothing.
func TestHistoryWarnsOfDifferentGateways(t *testing.T) {
	at := func(day int, base string) NamedReport {
		n := night(day, P, TV)
		n.Report.Metadata.BaseURL = base
		return n
	}
	h := BuildHistory([]NamedReport{at(1, "https://gw.example"), at(2, "https://gw.example"), at(3, "")})
	require.Len(t, h.Warnings, 1)
	assert.Equal(t, "the nights come from 2 gateways: gw.example (2 nights), "+reportv1.ReferenceGateway+" (1 night); a cell's history compares them", h.Warnings[0])
	assert.Equal(t, "https://gw.example", h.Nights[0].Gateway)
	var b bytes.Buffer
	require.NoError(t, h.WriteHTML(&b))
	assert.Contains(t, b.String(), `"warnings":["the nights come from 2 gateways`)

	h = BuildHistory([]NamedReport{at(1, "https://gw.example"), at(2, "https://gw.example")})
	assert.Empty(t, h.Warnings)
}

// History lines each library's readiness up over the nights, a night
// without a row for it left empty.
func TestHistoryReadiness(t *testing.T) {
	textPlain := vocab.Reason{Check: "content_type", Message: `response media type is "text/plain", want application/json`}
	at := func(day int, clients []string, rs ...results.Result) NamedReport {
		m := SampleMeta()
		m.Started = T0.Add(time.Duration(day) * 24 * time.Hour)
		m.Clients = clients
		return NamedReport{Name: "night" + string(rune('0'+day)) + "/report.json", Report: report.Build(m, rs)}
	}
	strict := func(st vocab.Status, reasons ...vocab.Reason) results.Result {
		r := Res("chat-json-strict", "chat.basic", "gen-5.5", vocab.TierStrict, st)
		r.Reasons = reasons
		return r
	}
	h := BuildHistory([]NamedReport{
		at(2, []string{"openai-go", "openai-python"}, strict(vocab.StatusPass)),
		at(1, []string{"openai-go"}, strict(vocab.StatusFail, textPlain)),
	})
	require.Len(t, h.Readiness, 2)
	assert.Equal(t, "openai-go", h.Readiness[0].Client)
	assert.Equal(t, []results.Readiness{results.ReadyNot, results.ReadyUnknown}, h.Readiness[0].Verdicts, "NOT READY the first night, then only unchecked needs")
	assert.Equal(t, "openai-python", h.Readiness[1].Client)
	assert.Equal(t, []results.Readiness{"", results.ReadyUnknown}, h.Readiness[1].Verdicts, "no row the first night")
}
