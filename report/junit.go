package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// JUnit XML, in the shape most CI consumers accept (Jenkins, GitLab, GitHub
// test reporters): <testsuites> of <testsuite> of <testcase>. The types are
// exported so tests and tools can parse junit.xml back.

// JUnitSuites is the document root.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     Seconds      `xml:"time,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one feature.
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       Seconds         `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties *JUnitProps     `xml:"properties,omitempty"`
	Cases      []JUnitTestCase `xml:"testcase"`
}

// JUnitProps carries run facts on each suite.
type JUnitProps struct {
	Props []JUnitProp `xml:"property"`
}

// JUnitProp is one name/value pair.
type JUnitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitTestCase is one case × model, named "<model>/<case-id>".
type JUnitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      Seconds       `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a <failure> or <error>.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnitSkipped is a <skipped>.
type JUnitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// JUnit builds the JUnit document: one testsuite per feature that has results,
// in report order. fail → <failure>, error → <error> (the run broke, not the
// gateway: CI tools show the two apart), skip, unsupported, throttled and
// inconclusive → <skipped> with the status as message: none of them is a
// verdict on the gateway's conformance, and none of them fails the run
// (DESIGN.md exit codes).
// waived → <skipped> too, its message the waiver's reason and link: a known
// deviation accepted by the team, not a pass and not a failure of the run.
// A fail of a tier that does not decide the exit code is still a <failure>
// (it is one), its message says "reported only".
func (r *Report) JUnit() JUnitSuites {
	doc := JUnitSuites{Name: "gwconform"}
	suites := map[string]int{}
	ts := ""
	if !r.Metadata.Started.IsZero() {
		ts = r.Metadata.Started.UTC().Format("2006-01-02T15:04:05")
	}
	for _, res := range r.Results {
		i, ok := suites[res.Feature]
		if !ok {
			i = len(doc.Suites)
			suites[res.Feature] = i
			doc.Suites = append(doc.Suites, JUnitSuite{Name: res.Feature, Timestamp: ts, Properties: r.junitProps()})
		}
		s := &doc.Suites[i]
		tc := JUnitTestCase{
			Name:      res.Model + "/" + res.Case,
			Classname: res.Feature,
			Time:      Seconds(float64(res.DurationMS) / 1000),
			SystemOut: junitOut(res),
		}
		s.Tests++
		s.Time += tc.Time
		switch res.Status {
		case vocab.StatusError, vocab.StatusFail:
			if res.Cancelled { // the run's interrupt, not the gateway: no verdict
				s.Skipped++
				tc.Skipped = &JUnitSkipped{Message: "cancelled: the run was interrupted before this call ended (gwconform run --resume makes it again)"}
				break
			}
			if res.Status == vocab.StatusError {
				s.Errors++
				tc.Error = junitProblem(res, r.Metadata.Strict)
				break
			}
			s.Failures++
			tc.Failure = junitProblem(res, r.Metadata.Strict)
		case vocab.StatusSkip, vocab.StatusUnsupported, vocab.StatusThrottled, vocab.StatusInconclusive:
			s.Skipped++
			msg := string(res.Status)
			if len(res.Reasons) > 0 {
				msg += ": " + res.Reasons[0].String()
			}
			tc.Skipped = &JUnitSkipped{Message: msg}
		case vocab.StatusWaived:
			s.Skipped++
			msg := "waived"
			if res.Waiver != nil {
				msg += ": " + res.Waiver.Describe()
			}
			if len(res.Reasons) > 0 {
				msg += "; " + res.Reasons[0].String()
			}
			tc.Skipped = &JUnitSkipped{Message: msg}
		}
		s.Cases = append(s.Cases, tc)
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Time += s.Time
	}
	return doc
}

func (r *Report) junitProps() *JUnitProps {
	m := r.Metadata
	p := &JUnitProps{}
	add := func(k, v string) {
		if v != "" {
			p.Props = append(p.Props, JUnitProp{Name: k, Value: v})
		}
	}
	add("suiteVersion", m.SuiteVersion)
	add("commit", m.Commit)
	add("catalogHash", m.CatalogHash)
	add("baseURL", m.BaseURL)
	add("strict", fmt.Sprint(m.Strict))
	return p
}

func junitProblem(res results.Result, strict bool) *JUnitProblem {
	p := &JUnitProblem{Message: string(res.Status)}
	if len(res.Reasons) > 0 {
		p.Message = res.Reasons[0].String()
		p.Type = res.Reasons[0].Check
	}
	if !res.Decides(strict) {
		p.Message = "[" + string(res.Tier) + " tier, reported only] " + p.Message
	}
	var b strings.Builder
	for _, x := range res.Reasons {
		b.WriteString(x.String())
		b.WriteByte('\n')
	}
	p.Text = b.String()
	return p
}

func junitOut(res results.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tier: %s\n", res.Tier)
	if res.Spec != "" {
		fmt.Fprintf(&b, "spec: %s\n", res.Spec)
	}
	if res.Requirement != "" {
		fmt.Fprintf(&b, "requirement: %s\n", res.Requirement)
	}
	if res.Request != nil {
		fmt.Fprintf(&b, "request: %s %s\n", res.Request.Method, res.Request.Path)
	}
	if res.HTTPStatus != 0 {
		fmt.Fprintf(&b, "http status: %d\n", res.HTTPStatus)
	}
	if res.RequestID != "" {
		fmt.Fprintf(&b, "request id: %s\n", res.RequestID)
	}
	if t := res.Transcript; t != nil && t.Exchange != "" {
		fmt.Fprintf(&b, "exchange: %s\n", t.Exchange)
	}
	fmt.Fprintf(&b, "ttfb: %dms, total: %dms, attempts: %d", res.TTFBMS, res.DurationMS, res.Attempts)
	if res.Flaky {
		b.WriteString(" (flaky)")
	}
	if res.Waits > 0 {
		fmt.Fprintf(&b, "\nwaited on the rate limit: %d× %dms (not in the total)", res.Waits, res.WaitMS)
	}
	if res.Events > 0 {
		fmt.Fprintf(&b, "\nstream: first event %dms, %d events", res.FirstEventMS, res.Events)
	}
	return b.String()
}

// WriteJUnit writes junit.xml.
func (r *Report) WriteJUnit(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r.JUnit()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// Seconds is a JUnit time attribute, written with millisecond precision (a sum
// of float seconds would otherwise print as 0.30000000000000004).
type Seconds float64

// MarshalXMLAttr formats the seconds as "1.234".
func (s Seconds) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: strconv.FormatFloat(float64(s), 'f', 3, 64)}, nil
}
