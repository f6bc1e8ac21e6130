package docread

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Severity says whether a Problem cost an object (Error) or is informational
// (Warning).
type Severity int

const (
	// Error: the object named by the problem was not loaded.
	Error Severity = iota + 1
	// Warning: the object was loaded; something in it was ignored or
	// looked suspicious.
	Warning
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "severity(" + strconv.Itoa(int(s)) + ")"
	}
}

// Problem is one finding about the input.
type Problem struct {
	Severity Severity
	// File is the name the data was loaded under; Line is 1-based, 0 when
	// unknown. For an object inside a List it is the line where the item
	// starts (best effort: the List's line when the item cannot be located).
	File string
	Line int
	// Object is "Kind namespace/name" or "Kind name" for cluster-scoped
	// kinds; empty when the problem is about the document as a whole.
	Object string
	// Field is the JSON path of the offending field, e.g.
	// "spec.containers[0].resources.requests.cpu"; may be empty.
	Field   string
	Message string
	// Item is the object's place in its List, e.g. "items[3]", when its
	// line does not tell it from the others (a List on one line); else
	// empty.
	Item string

	// summary marks the problem that counts the others past
	// MaxListedProblems.
	summary bool
}

// String renders the problem like a compiler diagnostic:
//
//	snap.yaml:42: Pod default/web-1: spec.containers[0].resources.requests.cpu: quantities must match ...
//
// Warnings carry a "warning: " prefix after the position.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Line))
		}
		b.WriteString(": ")
	}
	if p.Severity == Warning {
		b.WriteString("warning: ")
	}
	if p.Item != "" {
		b.WriteString(p.Item)
		b.WriteString(": ")
	}
	if p.Object != "" {
		b.WriteString(p.Object)
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// MaxListedProblems bounds the problems a Report lists: past it they are
// only counted, in one last problem that says how many there are (a
// million bad items cost a count, not a million messages).
const MaxListedProblems = 1000

// Report collects the problems found while loading. The zero value is ready
// to use.
type Report struct {
	Problems []Problem

	// fileOrder ranks files by the order they were first seen, so that
	// Sort keeps a directory's files in load order.
	fileOrder map[string]int
	// item is the Item of the problems added now (SetItem).
	item string
	// omitted counts the problems past MaxListedProblems, by severity.
	omitted [Warning + 1]int
}

// Add adds a problem, with the current item (SetItem) unless it has one.
func (r *Report) Add(p Problem) {
	if r.fileOrder == nil {
		r.fileOrder = map[string]int{}
	}
	if len(r.Problems) >= MaxListedProblems {
		r.omit(p.Severity)
		return
	}
	if p.Item == "" {
		p.Item = r.item
	}
	if _, ok := r.fileOrder[p.File]; !ok {
		r.fileOrder[p.File] = len(r.fileOrder)
	}
	r.Problems = append(r.Problems, p)
}

// omit counts a problem past MaxListedProblems in the last problem.
func (r *Report) omit(s Severity) {
	if s != Error {
		s = Warning
	}
	r.omitted[s]++
	n := len(r.Problems)
	if !r.Problems[n-1].summary {
		r.Problems = append(r.Problems, Problem{summary: true})
		n++
	}
	p := &r.Problems[n-1]
	errs, warns := r.omitted[Error], r.omitted[Warning]
	p.Severity = Warning
	if errs > 0 {
		p.Severity = Error
	}
	p.Message = fmt.Sprintf("%d more problems (%d errors, %d warnings) are not listed: only the first %d are", errs+warns, errs, warns, MaxListedProblems)
}

// Omitted returns how many problems past MaxListedProblems were only
// counted, by severity.
func (r *Report) Omitted() (errors, warnings int) {
	if r == nil {
		return 0, 0
	}
	return r.omitted[Error], r.omitted[Warning]
}

// CountsOmitted reports whether p is the problem that counts those past
// MaxListedProblems.
func (p Problem) CountsOmitted() bool { return p.summary }

// SetItem sets the Item of the problems added from now on ("" for none).
func (r *Report) SetItem(item string) { r.item = item }

// Item is the current item (SetItem).
func (r *Report) Item() string { return r.item }

func (r *Report) Errorf(file string, line int, object, field, format string, args ...any) {
	r.Add(Problem{Severity: Error, File: file, Line: line, Object: object, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (r *Report) Warnf(file string, line int, object, field, format string, args ...any) {
	r.Add(Problem{Severity: Warning, File: file, Line: line, Object: object, Field: field, Message: fmt.Sprintf(format, args...)})
}

// Sort orders problems by file (in load order) and line, keeping the
// order of problems on the same line.
func (r *Report) Sort() {
	sort.SliceStable(r.Problems, func(i, j int) bool {
		a, b := r.Problems[i], r.Problems[j]
		if a.summary != b.summary {
			return b.summary // the count of those not listed comes last
		}
		if a.File != b.File {
			return r.fileOrder[a.File] < r.fileOrder[b.File]
		}
		return a.Line < b.Line
	})
}

// HasErrors reports whether any problem has Error severity.
func (r *Report) HasErrors() bool {
	if r == nil {
		return false
	}
	if r.omitted[Error] > 0 {
		return true
	}
	for _, p := range r.Problems {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns the Error-severity problems.
func (r *Report) Errors() []Problem { return r.filter(Error) }

// Warnings returns the Warning-severity problems.
func (r *Report) Warnings() []Problem { return r.filter(Warning) }

func (r *Report) filter(s Severity) []Problem {
	if r == nil {
		return nil
	}
	var out []Problem
	for _, p := range r.Problems {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}

// String renders every problem, one per line.
func (r *Report) String() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// ParseError is returned when a file cannot be read or parsed at all;
// nothing from that file is loaded.
type ParseError struct {
	File string
	Line int // 0 when the position is unknown
	Msg  string
	Err  error // underlying error, if any
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *ParseError) Unwrap() error { return e.Err }
