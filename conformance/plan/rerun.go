package plan

import "github.com/gwconform/gwconform/conformance/results"

// Rerun picks, from the plan of a recorded run re-made without its
// budget, the calls whose recorded result --rerun-failed runs again
// (results.Result.Rerunnable) and the calls the recorded run never made (it
// was interrupted), so a re-run never turns an incomplete run green. A
// negative picked brings its control along, marked Control, even when the
// control passed: a refusal is judged beside a control of the same run. It
// applies what is left of the run's budget
// (sel.MaxCalls, sel.MaxCost less what the recorded results spent, re-runs
// included), to pairs together. It returns the calls to make and the calls
// held back, each with its skip reason: over the budget, or a key missing
// or rejected now.
func Rerun(plan []Call, recorded []results.Result, strict bool, sel Selection) (run, held []Call) {
	b, again, seen := spent(recorded, strict, sel)
	picked := pickAgain(plan, again, seen)
	b.Apply(picked)
	for _, c := range picked {
		if c.Skip == nil {
			run = append(run, c)
		} else {
			held = append(held, c)
		}
	}
	return run, held
}

// spent is what the recorded run used of its budget, which results it
// would run again, and which it has at all.
func spent(recorded []results.Result, strict bool, sel Selection) (b Budget, again, seen map[results.CaseModel]bool) {
	again, seen = map[results.CaseModel]bool{}, map[results.CaseModel]bool{}
	b = Budget{Calls: sel.MaxCalls, Cost: sel.MaxCost}
	for _, r := range recorded {
		seen[r.CaseModel()] = true
		if r.Attempts > 0 {
			b.Made++
		}
		b.Made += r.Reruns
		b.Spent += r.CostUnits
		if r.Rerunnable(strict) {
			again[r.CaseModel()] = true
		}
	}
	return b, again, seen
}

// pickAgain takes, in the plan's order (controls first), the calls to run
// again or never made, and the control of each negative taken, marked
// Control.
func pickAgain(plan []Call, again, seen map[results.CaseModel]bool) []Call {
	want, companion := map[results.CaseModel]bool{}, map[results.CaseModel]bool{}
	for _, c := range plan {
		if k := c.CaseModel(); again[k] || !seen[k] {
			want[k] = true
		}
	}
	for _, c := range plan {
		if k, ok := c.ControlKey(); ok && want[c.CaseModel()] && !want[k] {
			companion[k] = true
		}
	}
	var picked []Call
	for _, c := range plan {
		switch {
		case want[c.CaseModel()]:
			picked = append(picked, c)
		case companion[c.CaseModel()]:
			c.Control = true
			picked = append(picked, c)
		}
	}
	return picked
}

// Resume splits the plan of an interrupted run (re-made from its
// manifest) into the results to keep and the calls still to make. A call
// is finished when a recorded result of its case × model was not cut by
// the interrupt (results.Result.Cancelled): its last such line is kept, in
// plan order. Every other call — never reported, or cancelled — is made
// again, so the run ends with each case × model exactly once.
func Resume(plan []Call, recorded []results.Result) (kept []results.Result, todo []Call) {
	done := map[results.CaseModel]results.Result{}
	for _, r := range recorded {
		if !r.Cancelled {
			done[r.CaseModel()] = r
		}
	}
	for _, c := range plan {
		if r, ok := done[c.CaseModel()]; ok {
			kept = append(kept, r)
		} else {
			todo = append(todo, c)
		}
	}
	return kept, todo
}
