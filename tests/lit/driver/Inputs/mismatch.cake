target sm_80;
kernel k() grid(1) threads(32) {
  let = 1;
  // expected-error@+1 E0301 {{use of undeclared name 'q'}}

  // expected-error E0201 no braces
}
