/* Entry points of the applets, one file each in cmd/. */
#ifndef STK_APPLETS_H
#define STK_APPLETS_H

int info_main(int argc, char **argv);
int profile_main(int argc, char **argv);
int offcputime_main(int argc, char **argv);
int stackcount_main(int argc, char **argv);
int threadstate_main(int argc, char **argv);

#endif
