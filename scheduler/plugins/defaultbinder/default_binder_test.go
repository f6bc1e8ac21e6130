package defaultbinder

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func TestBind(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "ns"}}
	const node = "foohost.kubernetes.mydomain.com"
	tests := []struct {
		name     string
		inject   error
		noFunc   bool
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "successful"},
		{name: "binding error", inject: errors.New("binding error"), wantCode: framework.Error, wantMsg: "binding error"},
		{name: "no bind func", noFunc: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotPod *v1.Pod
			var gotNode string
			f := func(_ context.Context, p *v1.Pod, n string) error {
				gotPod, gotNode = p, n
				return tt.inject
			}
			var p framework.Plugin
			if tt.noFunc {
				p, _ = New(nil, nil)
			} else {
				p, _ = NewWithBindFunc(f)(nil, nil)
			}
			s := p.(framework.BindPlugin).Bind(context.Background(), framework.NewCycleState(), pod, node)
			if s.Code() != tt.wantCode || s.Message() != tt.wantMsg {
				t.Errorf("status = (%v, %q), want (%v, %q)", s.Code(), s.Message(), tt.wantCode, tt.wantMsg)
			}
			if tt.noFunc {
				return
			}
			if gotPod != pod || gotNode != node {
				t.Errorf("bind func got (%v, %q)", gotPod, gotNode)
			}
		})
	}
}

func TestSetBindFunc(t *testing.T) {
	p, _ := New(nil, nil)
	b := p.(*DefaultBinder)
	calls := 0
	b.SetBindFunc(func(context.Context, *v1.Pod, string) error { calls++; return nil })
	if s := b.Bind(context.Background(), nil, &v1.Pod{}, "n"); !s.IsSuccess() || calls != 1 {
		t.Errorf("status %v, calls %d", s, calls)
	}
	b.SetBindFunc(nil)
	if s := b.Bind(context.Background(), nil, &v1.Pod{}, "n"); !s.IsSuccess() || calls != 1 {
		t.Errorf("after removal: status %v, calls %d", s, calls)
	}
}
