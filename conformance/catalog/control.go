package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// validateControl checks what one case alone can say of its control: a
// negative case names one, no other tier does.
func (l *loader) validateControl(d *decoder, c *Case) {
	named := d.present["control"]
	switch {
	case c.Tier == vocab.TierNegative && !named:
		d.errAt(d.at(""), "a negative case needs control: the id of a verified case on the same path that sends this request without its defect")
	case named && c.Tier != vocab.TierNegative && c.Tier != "":
		d.errAt(d.at("control"), "control: only a negative case names one (this one is %s)", c.Tier)
	case named && c.Control == "":
		d.errAt(d.at("control"), "control: empty; give the id of a verified case")
	case named:
		if l.controlAt == nil {
			l.controlAt = map[string]Diagnostic{}
		}
		at := d.at("control")
		l.controlAt[c.ID] = Diagnostic{File: d.file, Line: at.Line, Col: at.Col}
	}
}

// checkControls checks each control against the whole catalog, once every
// file is read and the model additions applied: it exists, is verified,
// expects a success (what the gateway must show it serves), is on the
// negative's method and path, and lists every model of the negative, since
// each negative call waits for the control call of its model.
func (l *loader) checkControls(cases []Case) {
	byID := map[string]*Case{}
	var ids []string
	for i := range cases {
		if _, dup := byID[cases[i].ID]; !dup {
			byID[cases[i].ID] = &cases[i]
			ids = append(ids, cases[i].ID)
		}
	}
	for i := range cases {
		c := &cases[i]
		diag, ok := l.controlAt[c.ID]
		if !ok || c.Control == "" || byID[c.ID] != c {
			continue
		}
		if msg := controlProblem(c, byID[c.Control], ids); msg != "" {
			diag.Message = msg
			l.diags = append(l.diags, diag)
		}
	}
}

// controlProblem says why ctl (nil: no such case; ids are the known ones)
// cannot be the control of c, or is "".
func controlProblem(c, ctl *Case, ids []string) string {
	switch {
	case ctl == nil:
		return fmt.Sprintf("control: no case with id %q%s", c.Control, Closest(c.Control, ids))
	case ctl.Tier != vocab.TierVerified:
		return fmt.Sprintf("control %q is a %s case: a control must be verified, a row the spec shows served", c.Control, ctl.Tier)
	case ctl.Expect.StatusIn != nil || ctl.Expect.Status/100 != 2:
		return fmt.Sprintf("control %q expects %s: a control is a request the spec shows served (a 2xx)", c.Control, ctl.Expect.WantStatus())
	case ctl.Request.Method != c.Request.Method || ctl.Request.Path != c.Request.Path:
		return fmt.Sprintf("control %q sends %s %s, not %s %s: a control is on the negative's endpoint", c.Control, ctl.Request.Method, ctl.Request.Path, c.Request.Method, c.Request.Path)
	}
	var missing []string
	for _, m := range c.Models {
		if !slices.Contains(ctl.Models, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("control %q does not list %s: a control runs with each model of its negative (add them to its models or to its model_additions)", c.Control, strings.Join(missing, ", "))
	}
	return ""
}
