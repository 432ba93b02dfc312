// unary/ndtri: the inverse of the standard normal distribution function, as PyTorch's calc_ndtri
// (Cephes): a rational approximation around 1/2, two in z = sqrt(-2 log y) in the tails.
#define NIN 1
#include "compute.clh"
#include "special.clh"

// For 0 <= |y - 1/2| <= 3/8, then for z in [2, 8) and in [8, 64].
__constant ct foo_ndtri_p0[5] = {-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
                                 1.39312609387279679503E1, -1.23916583867381258016E0};
__constant ct foo_ndtri_q0[9] = {1.00000000000000000000E0,  1.95448858338141759834E0, 4.67627912898881538453E0,
                                 8.63602421390890590575E1,  -2.25462687854119370527E2, 2.00260212380060660359E2,
                                 -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0};
__constant ct foo_ndtri_p1[9] = {4.05544892305962419923E0,  3.15251094599893866154E1,  5.71628192246421288162E1,
                                 4.40805073893200834700E1,  1.46849561928858024014E1,  2.18663306850790267539E0,
                                 -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4};
__constant ct foo_ndtri_q1[9] = {1.00000000000000000000E0,  1.57799883256466749731E1,  4.53907635128879210584E1,
                                 4.13172038254672030440E1,  1.50425385692907503408E1,  2.50464946208309415979E0,
                                 -1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4};
__constant ct foo_ndtri_p2[9] = {3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
                                 1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
                                 3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9};
__constant ct foo_ndtri_q2[9] = {1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0,
                                 1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
                                 3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9};

inline ct foo_ndtri(ct y0) {
  const ct exp_minus_2 = (ct)0.13533528323661269189;
  if (y0 == 0) return -(ct)INFINITY;
  if (y0 == 1) return (ct)INFINITY;
  if (y0 < 0 || y0 > 1) return (ct)NAN;
  bool lower = true;
  ct y = y0;
  if (y > 1 - exp_minus_2) {
    y = 1 - y;
    lower = false;
  }
  if (y > exp_minus_2) {
    y = y - (ct)0.5;
    const ct y2 = y * y;
    const ct x = y + y * (y2 * foo_polevl(y2, foo_ndtri_p0, 4) / foo_polevl(y2, foo_ndtri_q0, 8));
    return x * (ct)2.50662827463100050242E0;  // sqrt(2 pi)
  }
  const ct x = sqrt(-2 * log(y));
  const ct x0 = x - log(x) / x;
  const ct z = 1 / x;
  const ct x1 = x < 8 ? z * foo_polevl(z, foo_ndtri_p1, 8) / foo_polevl(z, foo_ndtri_q1, 8)
                      : z * foo_polevl(z, foo_ndtri_p2, 8) / foo_polevl(z, foo_ndtri_q2, 8);
  return lower ? -(x0 - x1) : x0 - x1;
}

#define OP(a) foo_ndtri(a)
#include "pointwise.clh"
