target sm_80;
kernel k() grid(1) threads(32) {
  let = 1;  // expected-error E0201 {{expected a name, found '='}}
}
