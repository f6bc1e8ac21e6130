package kubecluster

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Process is the testing.TB the API server's test harness needs, for a
// command: its log goes to LogTo (or nowhere), errors to Errors, and a
// fatal error panics with a *FatalError that Recover turns back into an
// error. Cleanups run, last first, on RunCleanups.
type Process struct {
	name string
	// LogTo receives what the harness and the API server log; nil drops
	// it.
	LogTo io.Writer
	// Errors receives the errors the harness reports without failing.
	Errors io.Writer

	mu       sync.Mutex
	failed   bool
	cleanups []func()
}

// NewProcess names a Process (its Name, used in the harness's messages).
func NewProcess(name string, errors io.Writer) *Process {
	return &Process{name: name, Errors: errors}
}

// FatalError is what a Process's Fatal panics with.
type FatalError struct{ Message string }

func (e *FatalError) Error() string { return e.Message }

// Recover, deferred, turns a Process's fatal panic into *err.
func Recover(err *error) {
	if r := recover(); r != nil {
		f, ok := r.(*FatalError)
		if !ok {
			panic(r)
		}
		*err = f
	}
}

func (p *Process) Attr(key, value string) {}
func (p *Process) Chdir(dir string) {
	p.fatal(fmt.Sprintf("%s: Chdir(%q) would change the whole process's directory", p.name, dir))
}
func (p *Process) Cleanup(f func()) {
	p.mu.Lock()
	p.cleanups = append(p.cleanups, f)
	p.mu.Unlock()
}

// RunCleanups runs the registered cleanups, last registered first.
func (p *Process) RunCleanups() {
	for {
		p.mu.Lock()
		n := len(p.cleanups)
		if n == 0 {
			p.mu.Unlock()
			return
		}
		f := p.cleanups[n-1]
		p.cleanups = p.cleanups[:n-1]
		p.mu.Unlock()
		f()
	}
}

func (p *Process) Error(args ...any) {
	p.Fail()
	fmt.Fprintln(p.Errors, append([]any{p.name + ":"}, args...)...)
}
func (p *Process) Errorf(format string, args ...any) {
	p.Fail()
	fmt.Fprintf(p.Errors, p.name+": "+format+"\n", args...)
}
func (p *Process) Fail() {
	p.mu.Lock()
	p.failed = true
	p.mu.Unlock()
}
func (p *Process) FailNow() { p.fatal(p.name + ": failed") }
func (p *Process) Failed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}
func (p *Process) Fatal(args ...any) { p.fatal(fmt.Sprint(args...)) }
func (p *Process) Fatalf(format string, args ...any) {
	p.fatal(fmt.Sprintf(format, args...))
}
func (p *Process) fatal(msg string) {
	p.Fail()
	panic(&FatalError{Message: msg})
}
func (p *Process) Helper() {}
func (p *Process) Log(args ...any) {
	if p.LogTo != nil {
		fmt.Fprintln(p.LogTo, args...)
	}
}
func (p *Process) Logf(format string, args ...any) {
	if p.LogTo != nil {
		fmt.Fprintf(p.LogTo, format+"\n", args...)
	}
}
func (p *Process) Name() string { return p.name }
func (p *Process) Setenv(key, value string) {
	if err := os.Setenv(key, value); err != nil {
		p.fatal(err.Error())
	}
}
func (p *Process) Skip(args ...any)                 { p.fatal(fmt.Sprint(args...)) }
func (p *Process) Skipf(format string, args ...any) { p.fatal(fmt.Sprintf(format, args...)) }
func (p *Process) SkipNow()                         { p.fatal(p.name + ": skipped") }
func (p *Process) Skipped() bool                    { return false }

// TempDir makes a directory under os.TempDir, removed on RunCleanups.
func (p *Process) TempDir() string {
	dir, err := os.MkdirTemp("", p.name)
	if err != nil {
		p.fatal(err.Error())
	}
	p.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
