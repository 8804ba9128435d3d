package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
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
// in report order. A test case decides as the run does (DESIGN.md exit
// codes), so a CI test reporter shows red what fails the run and nothing
// else:
//   - a fail of a tier that decides the exit code (verified, negative;
//     strict under --strict) → <failure>; an error of one → <error> (the
//     run broke, not the gateway: CI tools show the two apart);
//   - throttled and inconclusive results of such a tier, and its cases
//     skipped unchecked (results.Result.Unchecked: a rejected key, a model
//     not listed, a list that could not be read, the budget) → <error>
//     with the reason: they leave the run incomplete; a case whose key is
//     unset stays <skipped>, as in go test;
//   - a fail or error of a tier that does not decide (strict without
//     --strict, explore) → <skipped message="reported only: ...">, its
//     reasons kept in system-out;
//   - any other skip, unsupported, waived (with the waiver's reason and
//     link) and a call the interrupt cut → <skipped>.
func JUnit(r *reportv1.Report) JUnitSuites {
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
			doc.Suites = append(doc.Suites, JUnitSuite{Name: res.Feature, Timestamp: ts, Properties: junitProps(r.Metadata)})
		}
		doc.Suites[i].add(junitCase(res, r.Metadata.Strict))
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Time += s.Time
	}
	// The document's time is the run's: its calls overlap (--concurrency),
	// so their sum says nothing of how long the run took.
	if m := r.Metadata; m.Finished.After(m.Started) && !m.Started.IsZero() {
		doc.Time = Seconds(m.Finished.Sub(m.Started).Seconds())
	}
	return doc
}

// add counts a test case in the suite, by its outcome, and appends it.
func (s *JUnitSuite) add(tc JUnitTestCase) {
	s.Tests++
	s.Time += tc.Time
	switch {
	case tc.Failure != nil:
		s.Failures++
	case tc.Error != nil:
		s.Errors++
	case tc.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, tc)
}

// junitCase is one result as a test case: failed, errored, skipped (with
// why) or passed, as the result decides the run.
func junitCase(res results.Result, strict bool) JUnitTestCase {
	tc := JUnitTestCase{
		Name:      res.Model + "/" + res.Case,
		Classname: res.Feature,
		Time:      Seconds(float64(res.DurationMS) / 1000),
		SystemOut: junitOut(res),
	}
	decides := res.Decides(strict)
	switch {
	case res.Cancelled:
		tc.Skipped = &JUnitSkipped{Message: "cancelled: the run was interrupted before this call ended (gwconform run --resume makes it again)"}
	case (res.Status == vocab.StatusFail || res.Status == vocab.StatusError) && !decides:
		tc.Skipped = &JUnitSkipped{Message: "reported only (" + string(res.Tier) + " tier, " + string(res.Status) + "): " + firstReason(res)}
	case res.Status == vocab.StatusFail:
		tc.Failure = junitProblem(res)
	case res.Status == vocab.StatusError:
		tc.Error = junitProblem(res)
	case decides && (res.Status == vocab.StatusThrottled || res.Status == vocab.StatusInconclusive || res.Unchecked()):
		tc.Error = junitProblem(res)
		tc.Error.Message = "incomplete (" + string(res.Status) + "): " + tc.Error.Message
	case res.Status == vocab.StatusWaived:
		tc.Skipped = &JUnitSkipped{Message: waivedMessage(res)}
	case res.Status != vocab.StatusPass:
		msg := string(res.Status)
		if len(res.Reasons) > 0 {
			msg += ": " + res.Reasons[0].String()
		}
		tc.Skipped = &JUnitSkipped{Message: msg}
	}
	return tc
}

// firstReason is a result's first reason, or its status without one.
func firstReason(res results.Result) string {
	if len(res.Reasons) == 0 {
		return string(res.Status)
	}
	return res.Reasons[0].String()
}

// waivedMessage says a result is waived, by which waiver, and what failed.
func waivedMessage(res results.Result) string {
	msg := "waived"
	if res.Waiver != nil {
		msg += ": " + res.Waiver.Describe()
	}
	if len(res.Reasons) > 0 {
		msg += "; " + res.Reasons[0].String()
	}
	return msg
}

// junitProps are the run facts each suite carries.
func junitProps(m reportv1.Metadata) *JUnitProps {
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

// junitProblem is a failure or error: its first reason as the message,
// and every reason as the text.
func junitProblem(res results.Result) *JUnitProblem {
	p := &JUnitProblem{Message: firstReason(res)}
	if len(res.Reasons) > 0 {
		p.Type = res.Reasons[0].Check
	}
	var b strings.Builder
	for _, x := range res.Reasons {
		b.WriteString(x.String())
		b.WriteByte('\n')
	}
	p.Text = b.String()
	return p
}

// junitOut is a test case's system-out: what the case checks, what was
// asked and answered, and the timings.
func junitOut(res results.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tier: %s\n", res.Tier)
	for _, l := range junitFacts(res) {
		if l[1] != "" {
			fmt.Fprintf(&b, "%s: %s\n", l[0], l[1])
		}
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

// junitFacts are the facts of a result system-out shows, by name, when
// known: its spec and requirement, the gateway's id of its model (the test
// name keeps the spec id), the request, the answer's status and request
// id, and the file keeping the exchange.
func junitFacts(res results.Result) [][2]string {
	var request, status, exchange string
	if res.Request != nil {
		request = res.Request.Method + " " + res.Request.Path
	}
	if res.HTTPStatus != 0 {
		status = strconv.Itoa(res.HTTPStatus)
	}
	if t := res.Transcript; t != nil {
		exchange = t.Exchange
	}
	return [][2]string{
		{"spec", res.Spec},
		{"requirement", res.Requirement},
		{"gateway model", res.GatewayModel},
		{"request", request},
		{"http status", status},
		{"request id", res.RequestID},
		{"exchange", exchange},
	}
}

// WriteJUnit writes junit.xml.
func WriteJUnit(w io.Writer, r *reportv1.Report) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(JUnit(r)); err != nil {
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
