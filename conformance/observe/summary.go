package observe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Covered are the spec rows the observed results judged, sorted: what
// the traffic covered (rows it did not touch were not judged).
func Covered(rs []results.Result) []string {
	var out []string
	for _, r := range rs {
		if !r.Observed {
			continue
		}
		for _, row := range strings.Split(r.Spec, ", ") {
			if row != "" && !slices.Contains(out, row) {
				out = append(out, row)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Summary says in one line what each side's judgement found.
func Summary(rs []results.Result) string {
	type count struct{ judged, failed, findings, notes, refused int }
	var client, gateway count
	for _, r := range rs {
		c := &client
		if r.Side == results.SideGateway {
			c = &gateway
		}
		c.judged++
		c.notes += len(r.Notes)
		if r.Status == vocab.StatusUnsupported {
			c.refused++
		}
		if r.Status == vocab.StatusFail || r.Status == vocab.StatusError {
			c.failed++
			c.findings += len(r.Reasons)
		}
	}
	s := fmt.Sprintf("client side: %d findings in %d of %d requests, %d notes", client.findings, client.failed, client.judged, client.notes)
	if gateway.judged == 0 {
		return s // the stand-in answered: it is not on trial
	}
	s += fmt.Sprintf("; gateway side: %d findings in %d of %d answers judged", gateway.findings, gateway.failed, gateway.judged)
	if gateway.refused > 0 {
		s += fmt.Sprintf(" (%d refusals of requests the spec owes no answer, reported)", gateway.refused)
	}
	return s
}

// Judged says how many exchanges were judged of those offered, and why
// the others were not: "9,500 of 10,000 exchanges; 500 not judged: the
// queue was full".
func Judged(c Counts) string {
	s := fmt.Sprintf("%d exchanges", c.Judged)
	if c.Offered != c.Judged {
		s = fmt.Sprintf("%d of %d exchanges", c.Judged, c.Offered)
	}
	if c.QueueFull > 0 {
		s += fmt.Sprintf("; %d not judged: the queue was full", c.QueueFull)
	}
	if c.SampledOut > 0 {
		s += fmt.Sprintf("; %d left out by the %g%% sample", c.SampledOut, c.Sample*100)
	}
	if c.PastMax > 0 {
		s += fmt.Sprintf("; %d after --judge-max", c.PastMax)
	}
	return s
}
